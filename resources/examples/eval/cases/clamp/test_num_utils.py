import unittest

from num_utils import clamp


class ClampTest(unittest.TestCase):
    def test_limits_both_ends(self):
        self.assertEqual(clamp(5, 0, 3), 3)
        self.assertEqual(clamp(-1, 0, 3), 0)

    def test_keeps_values_in_range(self):
        self.assertEqual(clamp(2, 0, 3), 2)


if __name__ == "__main__":
    unittest.main()
