#include <gettext-po.h>
