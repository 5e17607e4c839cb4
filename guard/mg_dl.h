/*
 * mg_dl.h - a library loaded when it is first needed (dlopen), not linked:
 * a program then starts without it and what it links. Its functions go in
 * a caller's table, a struct of typed pointers laid over an array of
 * void * (MG_DL_TABLE), filled by name in one call (mg_dl_load).
 */
#ifndef MG_DL_H
#define MG_DL_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* The table of the functions FNS lists (an X-macro: FNS(X) is X(f) for
 * each f): t.f is f's pointer, of f's own type, and t.slot the same
 * pointers as void *, in FNS's order, for mg_dl_load. */
#define MG_DL_FIELD(f) __typeof__(f) *f;
#define MG_DL_NAME(f)  #f,
#define MG_DL_TABLE(FNS)                                                                           \
	union {                                                                                    \
		struct {                                                                           \
			FNS(MG_DL_FIELD)                                                           \
		};                                                                                 \
		void *slot[sizeof((const char *[]){FNS(MG_DL_NAME)}) / sizeof(const char *)];      \
	}

/* Loads soname (RTLD_NOW, RTLD_LOCAL) and its n functions names[] into
 * fn[]: 0, or -1 with why (at most cap bytes): the loader's message, or
 * the first name the library lacks. The library stays loaded (its
 * functions may be called to the program's end). */
static inline int mg_dl_load(const char *soname, const char *const names[], void *fn[], size_t n,
                             char *why, size_t cap)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, cap, "%s", dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!(fn[i] = dlsym(h, names[i]))) {
			snprintf(why, cap, "%s has no %s", soname, names[i]);
			return -1;
		}
	return 0;
}

#endif
