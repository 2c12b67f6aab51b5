"""tfspec from Python: the layout algebra, the shard model, proofs and pictures of the tfspec
reference (the compiled part, `tfspec._tfspec`, built by CMake), and `tfspec.adapter`, a pure-Python
base for conformance adapters that needs no compiled part."""
try:
    from ._tfspec import *  # noqa: F401,F403  (the module's names are its API)
    from ._tfspec import __version__  # noqa: F401
    from ._tfspec import _names as __all__  # noqa: F401
except ImportError as _missing:  # a source tree without the build: tfspec.adapter still works
    _why = str(_missing)

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError("tfspec.%s needs the compiled module tfspec._tfspec, which did not load (%s): build it "
                          "(cmake --build build) and put build/python on PYTHONPATH; tfspec.adapter works without it"
                          % (name, _why))
