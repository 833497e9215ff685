#!/usr/bin/env bash
# Installs what gpuscan needs to build and test on Debian 12 (bookworm), with apt-get (as root, or through
# sudo): the compiler and build tools, Vulkan (headers, loader, glslc, the validation layers and Mesa's
# lavapipe, Vulkan on the CPU; volk for the test of an application with its own loader), shaderc (custom
# operators), EGL/GL headers and libraries with Mesa's llvmpipe behind EGL (the OpenGL backend), GoogleTest
# and CLI11, pybind11 and numpy/pytest (the Python module) and Open MPI (gpuscan::mpi). Packages already
# installed are left alone. About 600 MB on a minimal system. On another system it stops and lists what to
# install instead.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libvulkan-dev glslc spirv-tools vulkan-validationlayers mesa-vulkan-drivers libshaderc-dev libvulkan-volk-dev
  libegl-dev libgl-dev libopengl-dev libegl-mesa0 libgl1-mesa-dri
  libgtest-dev libcli11-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-setuptools python3-wheel python3-venv
  libopenmpi-dev openmpi-bin
)
os_id="" os_version=""
if [ -r /etc/os-release ]; then
  os_id=$(. /etc/os-release && echo "${ID:-}")
  os_version=$(. /etc/os-release && echo "${VERSION_ID:-}")
fi
if [ "$os_id" != "debian" ] || [ "$os_version" != "12" ] || ! command -v apt-get >/dev/null; then
  echo "scripts/install-deps.sh: this script installs Debian 12 packages, and this system is" \
       "'${os_id:-unknown} ${os_version}'." >&2
  echo "Install the equivalents of these Debian packages with your package manager, then build with CMake" \
       "(README.md, 'Building by hand'):" >&2
  echo "  ${packages[*]}" >&2
  echo "OpenGL, MPI and Python parts are optional: CMake skips each one whose packages it does not find." >&2
  exit 1
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "scripts/install-deps.sh: run as root or install sudo" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "installing ${#missing[@]} Debian packages: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
