/*
 * sites.c - allocation sites in the runner: the `module`/`site`/`pin` lines a
 * host sends before a test's result, gathered per test (sites_take), and their
 * frames symbolized with elfutils' libdw once the hosts are gone
 * (sites_symbolize): function, file and line from the module file the host
 * named, checked against the build-id the host read from its memory (a
 * rebuilt file is not used). One Dwfl per module, cached for the run.
 * A C++ function is named as a reader writes it (ns::Pool::grow,
 * fill<int>), demangled by libstdc++'s __cxa_demangle, its parameters and
 * return type cut (sites_cxx_name).
 * Never runs an addr2line process; never reads a host's memory.
 */
#include "sites.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_dl.h"
#include "report.h"

/* ---- gathering a test's lines ---- */

void sites_head_clear(sites_head *sh)
{
	for (size_t i = 0; i < sh->nmods; i++) {
		free(sh->mods[i].path);
		free(sh->mods[i].build_id);
	}
	sh->nmods = 0;
	for (size_t i = 0; i < sh->ts.nsites; i++) {
		report_site *s = &sh->ts.sites[i];
		for (size_t f = 0; f < s->nframes; f++) {
			free(s->frames[f].module);
			free(s->frames[f].build_id);
		}
		free(s->frames);
		free(s->kind);
		for (size_t p = 0; p < s->npins; p++)
			free(s->pins[p]);
		free(s->pins);
		for (size_t f = 0; f < s->nby; f++) {
			free(s->by[f].module);
			free(s->by[f].build_id);
		}
		free(s->by);
		free(s->in);
	}
	free(sh->ts.sites);
	sh->ts.sites = NULL;
	sh->ts.nsites = 0;
	sh->nomem = 0;
}

/* The frames of a site, held or heldby line m, added to s's frames (by:
 * its by): NULL, or why they are a protocol error. */
static const char *frames_add(sites_head *sh, report_site *s, const mg_msg *m, int by)
{
	const char *p = m->text, *end = m->text + m->text_len;
	mg_frame f;
	while (mg_proto_frame_next(&p, end, &f)) {
		if (f.module >= sh->nmods)
			return "site names a module not sent before it";
		report_frame *rf = by ? report_site_add_by(s) : report_site_add_frame(s);
		rf->module = report_strdup(sh->mods[f.module].path);
		rf->build_id =
		    sh->mods[f.module].build_id ? report_strdup(sh->mods[f.module].build_id) : NULL;
		rf->offset = f.offset;
	}
	return NULL;
}

const char *sites_head_line(sites_head *sh, const mg_msg *m)
{
	if (m->kind == MG_MSG_NOMEM) {
		sh->nomem += m->count;
		return NULL;
	}
	if (m->kind == MG_MSG_MODULE) {
		if (m->count != sh->nmods || sh->nmods == SITES_MODS_MAX)
			return "module IDs do not count up from 0"; /* within a test */
		sh->mods[sh->nmods].path = report_strndup(m->text, m->text_len);
		sh->mods[sh->nmods].build_id =
		    m->build_id_len ? report_strndup(m->build_id, m->build_id_len) : NULL;
		sh->nmods++;
		return NULL;
	}
	if (m->kind == MG_MSG_PIN) { /* an item pinning the block of the site before it */
		if (sh->ts.nsites == 0)
			return "pin before any site";
		report_site *s = &sh->ts.sites[sh->ts.nsites - 1];
		if (s->npins == MG_PROTO_PINS_MAX)
			return "more pin lines for one site than the protocol allows";
		char *text = report_strndup(m->text, m->text_len);
		report_site_add_pin(s, text);
		free(text);
		return NULL;
	}
	if (m->kind == MG_MSG_HELDIN || m->kind == MG_MSG_HELDBY) { /* of the held before it */
		report_site *s = sh->ts.nsites ? &sh->ts.sites[sh->ts.nsites - 1] : NULL;
		if (s == NULL || s->items == 0)
			return "heldin or heldby not after a held line";
		if (m->kind == MG_MSG_HELDIN) {
			if (s->in != NULL || s->nby)
				return "heldin twice, or after heldby";
			s->in = report_strndup(m->text, m->text_len);
			return NULL;
		}
		if (s->nby)
			return "heldby twice";
		return frames_add(sh, s, m, 1);
	}
	if (m->kind != MG_MSG_SITE && m->kind != MG_MSG_HELD)
		return "not a site line";
	if (m->kind == MG_MSG_HELD && m->count == 0)
		return "held with no items";
	report_site *s = report_test_sites_add(&sh->ts);
	s->kind = report_strdup(mg_proto_site_word(m->site_kind));
	s->bytes = m->bytes;
	s->count = m->kind == MG_MSG_HELD ? 1 : m->count;
	s->items = m->kind == MG_MSG_HELD ? m->count : 0;
	return frames_add(sh, s, m, 0);
}

void sites_head_record(sites_head *sh, report_shard *s, size_t test)
{
	if (sh->ts.nsites) {
		report_test_sites *ts = report_shard_add_test_sites(s, test);
		ts->sites = sh->ts.sites;
		ts->nsites = sh->ts.nsites;
		sh->ts.sites = NULL;
		sh->ts.nsites = 0;
	}
	sites_head_clear(sh);
}

/* ---- symbolizing ---- */

/* A module as libdw sees it: NULL when it could not be used. */
typedef struct sym_module {
	char *path, *build_id;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
} sym_module;

struct sites_cache {
	sym_module *mods;
	size_t n, cap;
};

/*
 * libdw is loaded when a module is first symbolized (dw_load), not linked:
 * a run without allocation sites starts without it and libelf, liblzma,
 * libbz2 and zlib (0.66 ms of CPU of every memguard start, measured
 * here). Its functions are called through dw.
 */
#define DW_FNS(X)                                                                                  \
	X(dwfl_begin)                                                                              \
	X(dwfl_report_begin)                                                                       \
	X(dwfl_report_offline)                                                                     \
	X(dwfl_report_end)                                                                         \
	X(dwfl_module_getelf)                                                                      \
	X(dwfl_module_build_id)                                                                    \
	X(dwfl_end)                                                                                \
	X(dwfl_module_addrdie)                                                                     \
	X(dwarf_haspc)                                                                             \
	X(dwfl_module_nextcu)                                                                      \
	X(dwarf_getscopes)                                                                         \
	X(dwarf_tag)                                                                               \
	X(dwarf_diename)                                                                           \
	X(dwarf_attr_integrate)                                                                    \
	X(dwarf_formstring)                                                                        \
	X(dwfl_module_addrname)                                                                    \
	X(dwfl_module_getsrc)                                                                      \
	X(dwfl_lineinfo)                                                                           \
	X(dwarf_getsrc_die)                                                                        \
	X(dwarf_linesrc)                                                                           \
	X(dwarf_lineno)                                                                            \
	X(dwfl_build_id_find_elf)                                                                  \
	X(dwfl_standard_find_debuginfo)                                                            \
	X(dwfl_offline_section_address)

static MG_DL_TABLE(DW_FNS) dw;
static const char *const dw_names[] = {DW_FNS(MG_DL_NAME)};

static Dwfl_Callbacks offline_callbacks;

/* 1 once libdw's functions are in dw; 0 when it cannot be loaded (said
 * once on stderr: the frames stay module and offset). Tried once a
 * process. */
static int dw_load(void)
{
	static int state; /* 0 not tried, 1 loaded, -1 failed */
	char why[512];
	if (state)
		return state > 0;
	state = mg_dl_load(MG_LIBDW_SONAME, dw_names, dw.slot,
	                   sizeof(dw_names) / sizeof(dw_names[0]), why, sizeof(why)) < 0
	            ? -1
	            : 1;
	if (state < 0)
		fprintf(
		    stderr,
		    "memguard: allocation sites: cannot load libdw (" MG_LIBDW_SONAME
		    "), which reads debug information: %s; their frames stay module and offset\n",
		    why);
	else
		offline_callbacks = (Dwfl_Callbacks){
		    .find_elf = dw.dwfl_build_id_find_elf,
		    .find_debuginfo = dw.dwfl_standard_find_debuginfo,
		    .section_address = dw.dwfl_offline_section_address,
		};
	return state > 0;
}

static int same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && !strcmp(a, b));
}

/* The module's build-id in hex from the file libdw opened, or "" */
static void file_build_id(Dwfl_Module *mod, char *hex, size_t cap)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dw.dwfl_module_build_id(mod, &bits, &vaddr);
	size_t k = 0;
	for (int i = 0; i < n && k + 2 < cap; i++) {
		hex[k++] = "0123456789abcdef"[bits[i] >> 4];
		hex[k++] = "0123456789abcdef"[bits[i] & 15];
	}
	hex[k] = '\0';
}

/* Opens path with libdw (its separate debug info found by build-id too). */
static void module_open(sym_module *sm)
{
	if (!dw_load())
		return;
	sm->dwfl = dw.dwfl_begin(&offline_callbacks);
	if (sm->dwfl == NULL)
		return;
	dw.dwfl_report_begin(sm->dwfl);
	sm->mod = dw.dwfl_report_offline(sm->dwfl, sm->path, sm->path, -1);
	dw.dwfl_report_end(sm->dwfl, NULL, NULL);
	if (sm->mod == NULL || dw.dwfl_module_getelf(sm->mod, &sm->bias) == NULL) {
		sm->mod = NULL;
		return;
	}
	if (sm->build_id) { /* the file on disk must be what the host ran */
		char hex[2 * 64 + 1];
		file_build_id(sm->mod, hex, sizeof(hex));
		if (strcmp(hex, sm->build_id))
			sm->mod = NULL;
	}
}

static sym_module *module_get(sites_cache *sc, const char *path, const char *build_id)
{
	for (size_t i = 0; i < sc->n; i++)
		if (!strcmp(sc->mods[i].path, path) && same(sc->mods[i].build_id, build_id))
			return &sc->mods[i];
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 8;
		sc->mods = mg_xrealloc(sc->mods, sc->cap * sizeof(*sc->mods));
	}
	sym_module *sm = &sc->mods[sc->n++];
	*sm = (sym_module){.path = report_strdup(path),
	                   .build_id = build_id ? report_strdup(build_id) : NULL};
	module_open(sm);
	return sm;
}

sites_cache *sites_cache_new(void)
{
	sites_cache *sc = mg_xrealloc(NULL, sizeof(*sc));
	*sc = (sites_cache){0};
	return sc;
}

void sites_cache_free(sites_cache *sc)
{
	if (sc == NULL)
		return;
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->mods[i].dwfl)
			dw.dwfl_end(sc->mods[i].dwfl);
		free(sc->mods[i].path);
		free(sc->mods[i].build_id);
	}
	free(sc->mods);
	free(sc);
}

/* The compilation unit holding addr, and its bias: through .debug_aranges,
 * else by asking each unit (clang writes no .debug_aranges, and libdw
 * before 0.189 finds nothing without them, or a wrong unit when other
 * objects of the module have them: a clang program linking a static
 * library GCC built); NULL when none holds it. */
static Dwarf_Die *cu_at(sym_module *sm, Dwarf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dw.dwfl_module_addrdie(sm->mod, addr, bias);
	if (cu != NULL && dw.dwarf_haspc(cu, addr - *bias) > 0)
		return cu;
	cu = NULL;
	while ((cu = dw.dwfl_module_nextcu(sm->mod, cu, bias)) != NULL)
		if (dw.dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* ---- C++ names ---- */

/* libstdc++'s demangler, loaded (as libdw) when a mangled name is first
 * met; its type is declared here, it is never linked. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);
#define CXA_FNS(X) X(__cxa_demangle)
static MG_DL_TABLE(CXA_FNS) cxa;
static const char *const cxa_names[] = {CXA_FNS(MG_DL_NAME)};

/* 1 once __cxa_demangle is in cxa; without libstdc++ (said once on stderr)
 * a C++ name stays mangled. Tried once a process. */
static int cxa_load(void)
{
	static int state; /* 0 not tried, 1 loaded, -1 failed */
	char why[512];
	if (state)
		return state > 0;
	state = mg_dl_load("libstdc++.so.6", cxa_names, cxa.slot, 1, why, sizeof(why)) < 0 ? -1 : 1;
	if (state < 0)
		fprintf(stderr,
		        "memguard: allocation sites: cannot load libstdc++ (libstdc++.so.6), which "
		        "demangles C++ names: %s; they stay mangled\n",
		        why);
	return state > 0;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The index just past the ')' matching the '(' at s[i] (the string's end
 * when none does). */
static size_t paren_end(const char *s, size_t i)
{
	int depth = 0;
	for (; s[i]; i++)
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i + 1;
	return i;
}

/*
 * The function's name in a demangled signature, malloc'd: what precedes
 * its parameter list (the first '(' outside <>, {}, [] and () but for a
 * local scope's, "f()::{lambda(int)#1}"), from after the return type a
 * function template's signature begins with (its last space outside
 * them, but within an operator's name): "void ns::fill<int>(int) const"
 * is "ns::fill<int>", "(anonymous namespace)::f(char)" and
 * "ns::operator<<(ns::A&)" keep their brackets, "operator new[](unsigned
 * long)" its space.
 */
static char *signature_name(const char *s)
{
	size_t start = 0, i = 0;
	int depth = 0;
	bool in_operator = false; /* past "operator ": new, delete, a conversion */
	while (s[i]) {
		char c = s[i];
		if (c == 'o' && !strncmp(s + i, "operator", 8) &&
		    (i == 0 || !ident_char(s[i - 1])) && !ident_char(s[i + 8])) {
			i += 8;
			if ((s[i] == '(' && s[i + 1] == ')') || (s[i] == '[' && s[i + 1] == ']'))
				i += 2;
			else if (s[i] == ' ' || (s[i] == '"' && s[i + 1] == '"'))
				in_operator = true; /* new, a conversion, a literal's "" _kb */
			else
				while (s[i] && strchr("<>=!+-*/%^&|~,", s[i]))
					i++;
			if (s[i] == ' ' && s[i + 1] == '<') /* "operator<< <int>" */
				i++;
			continue;
		}
		if (c == '(' && depth == 0) {
			if (!strncmp(s + i, "(anonymous namespace)", 21)) {
				i += 21;
				continue;
			}
			if ((i >= 9 && !strncmp(s + i - 9, "decltype ", 9)) ||
			    (i >= 8 && !strncmp(s + i - 8, "decltype", 8))) {
				i = paren_end(s, i); /* a return type's, not the parameters */
				continue;
			}
			size_t end = paren_end(s, i);
			if (strncmp(s + end, "::", 2)) /* not a local scope's: the parameters */
				break;
			i = end;
			continue;
		}
		if (c == '<' || c == '(' || c == '{' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == '}' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0 && !in_operator)
			start = i + 1;
		i++;
	}
	size_t n = i - start;
	/* a shape not foreseen (a function returning a function pointer,
	 * "void (*ns::f<int>())(int)"): the whole signature, not a piece */
	if (n == 0 || s[start] == '<' ||
	    (s[start] == '(' && strncmp(s + start, "(anonymous namespace)", 21)))
		return report_strdup(s);
	char *name = mg_xrealloc(NULL, n + 1);
	memcpy(name, s + start, n);
	name[n] = '\0';
	return name;
}

char *sites_cxx_name(const char *name)
{
	int status = -1;
	char *full = !strncmp(name, "_Z", 2) && cxa_load()
	                 ? cxa.__cxa_demangle(name, NULL, NULL, &status)
	                 : NULL;
	char *out = status == 0 && full != NULL ? signature_name(full) : report_strdup(name);
	free(full);
	return out;
}

/* A DWARF function's name: its linkage name (mangled: the whole C++ name,
 * namespaces and classes in it), else its own (C's, or an unqualified one). */
static const char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage = NULL;
	if (dw.dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != NULL ||
	    dw.dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != NULL)
		linkage = dw.dwarf_formstring(&attr);
	return linkage != NULL ? linkage : dw.dwarf_diename(die);
}

/* The name of the innermost function (an inlined one included) at addr:
 * from the DWARF scopes, else the symbol table; NULL when neither says.
 * A C++ name is still mangled (sites_cxx_name). */
static const char *function_at(sym_module *sm, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = cu_at(sm, addr, &bias);
	if (cu != NULL) {
		Dwarf_Die *scopes = NULL;
		int n = dw.dwarf_getscopes(cu, addr - bias, &scopes);
		const char *name = NULL;
		for (int i = 0; i < n && name == NULL; i++) {
			int tag = dw.dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				name = die_function_name(&scopes[i]);
		}
		free(scopes);
		if (name != NULL)
			return name;
	}
	return dw.dwfl_module_addrname(sm->mod, addr);
}

void sites_symbolize_frame(sites_cache *sc, report_frame *f)
{
	if (f->module == NULL || f->function != NULL)
		return;
	sym_module *sm = module_get(sc, f->module, f->build_id);
	if (sm->mod == NULL)
		return;
	/* a return address: the call is the byte before it */
	Dwarf_Addr addr = f->offset + sm->bias - (f->offset ? 1 : 0);
	const char *fn = function_at(sm, addr);
	if (fn != NULL)
		f->function = sites_cxx_name(fn);
	Dwfl_Line *line = dw.dwfl_module_getsrc(sm->mod, addr);
	int lineno = 0;
	const char *file = line ? dw.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = file == NULL ? cu_at(sm, addr, &bias) : NULL;
	Dwarf_Line *dl = cu != NULL ? dw.dwarf_getsrc_die(cu, addr - bias) : NULL;
	if (dl != NULL && (file = dw.dwarf_linesrc(dl, NULL, NULL)) != NULL)
		dw.dwarf_lineno(dl, &lineno);
	if (file != NULL) {
		f->file = report_strdup(file);
		f->line = lineno > 0 ? (uint32_t)lineno : 0;
	}
}

void sites_symbolize(report *r)
{
	sites_cache *sc = NULL;
	for (size_t s = 0; s < r->nshards; s++) {
		report_shard *sh = &r->shards[s];
		for (size_t t = 0; t < sh->nsites; t++)
			for (size_t k = 0; k < sh->sites[t].nsites; k++) {
				report_site *site = &sh->sites[t].sites[k];
				for (size_t f = 0; f < site->nframes + site->nby; f++) {
					if (sc == NULL)
						sc = sites_cache_new();
					sites_symbolize_frame(
					    sc, f < site->nframes ? &site->frames[f]
					                          : &site->by[f - site->nframes]);
				}
			}
	}
	sites_cache_free(sc);
}
