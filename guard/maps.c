/* maps.c - address-space breakdown from /proc/PID/maps (not written yet). */
#include <stddef.h>
