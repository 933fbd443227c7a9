"""pitlake: a point-in-time data lake for China A-share market data.

`pitlake.Lake(path)` is the Python entry point for as-of reads.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "Lake":
        from pitlake.read.lake import Lake

        return Lake
    raise AttributeError(name)
