"""What the public functions do: ``emit`` and friends, ``run``/``arun``, ``Toolbox``."""
