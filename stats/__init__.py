"""The statistics of the lab, on the ground floor beside :mod:`simulator`: plain arrays in, numbers
and verdict words out (numpy, scipy and statsmodels only; no files, no result tables).

words       the verdict words and levels, the one Holm step-down
tests       fixed-count tests and intervals (TOST, Wilson, Welch differences, Holm families)
moments     chunk-by-chunk moments and the design effect
sequences   the seat e-processes and confidence sequences
zone        the indifference-zone seat test
paired      the paired-difference confidence sequences of the instrument and variant verdicts
"""
