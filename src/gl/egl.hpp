// libEGL, opened at run time (dlopen "libEGL.so.1"), so that linking gpuscan adds no EGL dependency and
// a machine without EGL fails only when a GL context is asked for. Loaded once per process.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>

namespace gpuscan::gl {

struct Egl {
  PFNEGLGETPROCADDRESSPROC GetProcAddress = nullptr;
  PFNEGLGETERRORPROC GetError = nullptr;
  PFNEGLQUERYSTRINGPROC QueryString = nullptr;
  PFNEGLINITIALIZEPROC Initialize = nullptr;
  PFNEGLTERMINATEPROC Terminate = nullptr;
  PFNEGLBINDAPIPROC BindAPI = nullptr;
  PFNEGLCHOOSECONFIGPROC ChooseConfig = nullptr;
  PFNEGLCREATEPBUFFERSURFACEPROC CreatePbufferSurface = nullptr;
  PFNEGLDESTROYSURFACEPROC DestroySurface = nullptr;
  PFNEGLCREATECONTEXTPROC CreateContext = nullptr;
  PFNEGLDESTROYCONTEXTPROC DestroyContext = nullptr;
  PFNEGLMAKECURRENTPROC MakeCurrent = nullptr;
  PFNEGLGETCURRENTCONTEXTPROC GetCurrentContext = nullptr;
  PFNEGLGETCURRENTDISPLAYPROC GetCurrentDisplay = nullptr;
  PFNEGLRELEASETHREADPROC ReleaseThread = nullptr;
  PFNEGLGETPLATFORMDISPLAYEXTPROC GetPlatformDisplayEXT = nullptr;  // EGL_EXT_platform_base
  PFNEGLQUERYDEVICESEXTPROC QueryDevicesEXT = nullptr;              // EGL_EXT_device_enumeration
  PFNEGLQUERYDEVICESTRINGEXTPROC QueryDeviceStringEXT = nullptr;    // EGL_EXT_device_query
};

// The process's libEGL; throws Errc::no_device when it cannot be opened.
const Egl& egl();

}  // namespace gpuscan::gl
