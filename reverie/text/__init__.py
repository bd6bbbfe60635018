"""Text rules below every layer: what a memory line is (``memline``), dates in text (``dates``),
line statistics of a diff (``diff``) and the characters a display must show or refuse
(``safety``)."""
