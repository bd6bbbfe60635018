"""Text rules below every layer: what a memory line is (``memline``), dates in text (``dates``),
line statistics of a diff (``diff``), the characters a display must show or refuse
(``safety``), bytes that are not UTF-8, named in one line (``utf8``), and patterns compiled on
first use (``lazyre``)."""
