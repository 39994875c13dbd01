// libzip (1.7) for Swift: OTRecording's archive bundle (stored ZIP of WebM files + manifest).
#ifndef CZIP_H
#define CZIP_H
#include <zip.h>
#endif
