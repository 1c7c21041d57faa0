"""Game feel, from a run's lead record (``record = ["lead"]``): ``data`` reads the record back,
``measures`` turns standings into the feel measures, ``winchance`` estimates each seat's chance to
win from its standing, ``section`` is the report's feel part and the meta-game summary."""
