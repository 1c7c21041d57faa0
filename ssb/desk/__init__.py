"""The designer's desk (``ssb desk``): a local web application over the lab's own commands.

It browses the games, boards, instruments, strategies and run folders; edits an instrument or a
board in a form checked by the game's loader and saved as the designer's own file; and runs the
designer's two questions in the background as ordinary ``ssb`` commands writing ordinary run
folders: did this change move the balance (``ssb run`` + ``ssb regress`` on the baseline's deals),
and which number should I change (``ssb tune``). A top layer, like the command line: it imports the
loaders, the registry and the run folders' readers, never the kernel itself.
"""
