"""Why the compiled module did not load, in words a user can act on (issue 49): the wheel's
module and binary link the system's shared libraries, and the loader's own message
("libz3.so.4: cannot open shared object file") does not say which package provides one."""
import re


# The shared libraries tfspec's module and command link that a machine may lack, each with the
# Debian package that provides it (scripts/setup.sh installs the -dev packages, which pull these).
RUNTIME_PACKAGES = (
    ("libz3.so", "libz3-4", "Z3, the solver behind prove and the kernel checks' bounds"),
    ("libstdc++.so", "libstdc++6", "the C++ standard library (a version at least the build machine's)"),
    ("libgcc_s.so", "libgcc-s1", "GCC's runtime"),
)


def load_error(error: ImportError) -> ImportError:
    """An ImportError that names the Debian package to install when `error` is the loader's
    message about a missing shared library; otherwise `error` with what was being loaded."""
    said = str(error)
    for soname, package, what in RUNTIME_PACKAGES:
        if soname in said:
            named = re.search(re.escape(soname) + r"[.0-9]*", said)
            return ImportError("tfspec's compiled module (tfspec._tfspec) needs %s, which this machine lacks: install the "
                               "Debian package %s (apt-get install %s), which provides %s. The loader said: %s"
                               % (named.group(0) if named else soname, package, package, what, said))
    return ImportError("tfspec's compiled module (tfspec._tfspec) is installed but did not load: %s" % said)
