// libturbojpeg for Swift: MJPEG camera frames decoded straight to I420.
#ifndef CTURBOJPEG_H
#define CTURBOJPEG_H
#include <turbojpeg.h>
#endif
