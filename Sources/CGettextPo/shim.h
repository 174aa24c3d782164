#include <gettext-po.h>

// The PO parser child hands libgettextpo each file through a file in memory. <sys/mman.h>
// declares memfd_create(2) only under _GNU_SOURCE, which Swift's Glibc module is built without.
int memfd_create(const char *name, unsigned int flags);
static const unsigned int quire_mfd_cloexec = 0x0001U; // MFD_CLOEXEC

// Its children (`ChildProcess`) close what they did not ask for; <spawn.h> declares this one
// only under _GNU_SOURCE too (glibc 2.34 and later).
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
