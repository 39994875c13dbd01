// libsrtp2 for Swift: SRTP/SRTCP protect and unprotect.
#ifndef CSRTP_H
#define CSRTP_H
#include <srtp2/srtp.h>
#endif
