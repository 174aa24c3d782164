#include <gettext-po.h>

// The PO parser child hands libgettextpo each file through a file in memory. <sys/mman.h>
// declares memfd_create(2) only under _GNU_SOURCE, which Swift's Glibc module is built without.
int memfd_create(const char *name, unsigned int flags);
static const unsigned int quire_mfd_cloexec = 0x0001U; // MFD_CLOEXEC
