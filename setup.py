"""`pip install --no-build-isolation .`: builds tfspec._tfspec with the project's CMake (target
tfspec_python, the same module as `cmake --build build`) for the interpreter running pip, and
installs it with the pure-Python package python/tfspec (tfspec.adapter included).

The CMake build directory is build-pip/ in the source tree (TFSPEC_PIP_BUILD_DIR overrides it),
so that a second install and ccache reuse its objects; TFSPEC_PIP_CMAKE_ARGS adds configure
arguments (e.g. "-DTFSPEC_WERROR=ON"). Every dependency is a Debian package
(scripts/setup.sh); nothing is fetched from the network.
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# setuptools' own files (build/, *.egg-info) go under build-pip/ too: build/ is the CMake tree
# of the default preset and python/ is source.
SETUPTOOLS_DIR = os.path.join("build-pip", "setuptools")
os.makedirs(os.path.join(ROOT, SETUPTOOLS_DIR), exist_ok=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TFSPEC_PIP_BUILD_DIR", os.path.join(ROOT, "build-pip"))
        # RelWithDebInfo as the default preset: after a quickstart build, ccache answers most compiles
        configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DTFSPEC_BENCH=OFF",
                     "-DPython_EXECUTABLE=" + sys.executable] + os.environ.get("TFSPEC_PIP_CMAKE_ARGS", "").split()
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(["cmake", "--build", build, "--target", "tfspec_python", "-j", jobs], check=True)
        built = glob.glob(os.path.join(build, "python", "tfspec", "_tfspec*.so"))
        if len(built) != 1:
            sys.exit("setup.py: the CMake build did not produce one tfspec/_tfspec*.so under " + build)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    packages=["tfspec", "tfspec.adapter"],
    package_dir={"": "python"},
    ext_modules=[Extension("tfspec._tfspec", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options={"build": {"build_base": SETUPTOOLS_DIR}, "egg_info": {"egg_base": SETUPTOOLS_DIR}},
)
