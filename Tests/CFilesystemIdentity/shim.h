#include <sys/fsuid.h>
