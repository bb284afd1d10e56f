import unittest

from text_utils import slugify


class SlugifyTest(unittest.TestCase):
    def test_joins_words_with_single_dashes(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_collapses_runs_of_punctuation_and_spaces(self):
        self.assertEqual(slugify("  Agents -- and   graphs  "), "agents-and-graphs")


if __name__ == "__main__":
    unittest.main()
