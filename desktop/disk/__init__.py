"""Plain file and OS helpers every layer may use, the app's included: atomic writes,
JSON that refuses what it cannot hold exactly, where the data folder is, and the system
keychain. Nothing here knows runs, workflows or Qt."""
