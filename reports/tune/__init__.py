"""The balance search's report side (``ssb tune``): ``verdicts`` decides each target with the
report's own tests, ``summary`` writes the search's answer as Markdown and HTML."""
