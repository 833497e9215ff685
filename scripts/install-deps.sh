#!/usr/bin/env bash
# Installs what gpuscan needs to build and test on Debian 12 (bookworm), lavapipe included, and for the
# OpenGL backend the EGL and GL headers and Mesa's llvmpipe behind EGL (libegl-mesa0, libgl1-mesa-dri).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libvulkan-dev glslc spirv-tools vulkan-validationlayers mesa-vulkan-drivers libshaderc-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libgtest-dev libcli11-dev
  pybind11-dev python3-dev python3-numpy python3-pytest
  libopenmpi-dev openmpi-bin
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
