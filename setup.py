# The build behind `pip install .` (pyproject.toml): CMake configures this checkout with only the library
# and the Python module (target gpuscan_python), builds it for the interpreter that runs pip, and the
# module file goes into the wheel as `gpuscan`. Everything the CMake build needs must be installed first
# (scripts/install-deps.sh on Debian 12); nothing is downloaded.
#
# Environment:
#   GPUSCAN_CMAKE_BUILD_DIR  an existing, configured CMake build of this checkout whose module to build
#                            and package (it is built, not reconfigured; it must be for this Python)
#   GPUSCAN_CMAKE_ARGS       more arguments for the configure step, e.g. "-DGPUSCAN_WITH_GL=OFF"
#   CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: the CPUs there are)
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("GPUSCAN_CMAKE_BUILD_DIR")
        build_dir = os.path.abspath(given or os.path.join(self.build_temp, "cmake"))
        env = dict(os.environ)
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        if not given:
            args = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                    "-DGPUSCAN_BUILD_PYTHON=ON", "-DGPUSCAN_PYTHON=" + sys.executable,
                    "-DGPUSCAN_BUILD_TESTS=OFF", "-DGPUSCAN_BUILD_BENCH=OFF", "-DGPUSCAN_BUILD_CLI=OFF",
                    "-DGPUSCAN_BUILD_EXAMPLES=OFF", "-DGPUSCAN_BUILD_MPI=OFF", "-DGPUSCAN_INSTALL=OFF"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            args += shlex.split(os.environ.get("GPUSCAN_CMAKE_ARGS", ""))
            subprocess.run(args, check=True, env=env)
        subprocess.run(["cmake", "--build", build_dir, "--target", "gpuscan_python"], check=True, env=env)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build_dir, "python", "gpuscan" + suffix)
        if not os.path.exists(built):
            raise RuntimeError(f"the CMake build made no {built}: is {build_dir} built for {sys.executable}?")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


# No Python packages of its own: the module is the one extension (packages=[] also keeps setuptools from
# taking src/ for a package directory).
setup(packages=[], ext_modules=[CMakeExtension("gpuscan")], cmdclass={"build_ext": CMakeBuild})
