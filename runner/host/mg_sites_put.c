/*
 * mg_sites_put.c - allocation sites at a test's end (mg_sites.h): the pin
 * table of memguard_pin/memguard_unpin, the start of a test, and
 * mg_sites_put's lines: the test's live records grouped by stack into
 * `module`/`site`/`pin` lines, and the blocks of earlier tests its live
 * items hold as `held`/`heldin`/`heldby`/`pin` (PROTOCOL.md 6d). The other
 * half of mg_sites.c (the interposer and its table), split off so neither
 * is over 900 lines: nothing here is on the allocation path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mg_sites_int.h"

#include <link.h>
#include <string.h>

#include "memguard_host.h"
#include "mg_proto.h"

#ifndef MG_SITES_NONE

/* ---- pins: the items an allocator placed in its blocks (memguard_pin) ---- */

#define PIN_SETS 512 /* sets of WAYS slots, keyed by the item */

typedef struct pin {
	uintptr_t block;              /* as its allocator returned it */
	uint32_t seq;                 /* placement order: the first placed are sent */
	uint32_t serial;              /* the test that placed it */
	uint32_t stack;               /* where it was placed (memguard_pin's caller), +1; 0 none */
	char text[MG_SITES_PIN_TEXT]; /* "LABEL (TEST)", NUL-terminated */
} pin;

typedef struct pin_table {
	uintptr_t keys[PIN_SETS * WAYS]; /* the items; 0 free, KEY_BUSY being written */
	pin pins[PIN_SETS * WAYS];
} pin_table;

static pin_table *pin_tab; /* mapped at mg_sites_put_init (the probe: at its first pin) */
static uint32_t pin_seq;
static uint64_t pins_dropped;                 /* pins that found no room (a full set) */
static char test_name[MG_SITES_PIN_TEXT / 2]; /* the running test's, cut to fit */
static uint32_t test_pins;                    /* pins the running test placed, not yet unpinned */

/*
 * The names of the tests that ended still owning live records, for `heldin`
 * (the test that allocated a block a later test's items hold), by serial
 * (ascending: tests end in order). Kept from the first test on, however
 * long ago; when full, the names of tests none of whose records is still
 * live are dropped (a scan of the record table), and if that leaves more
 * than three quarters, the oldest beyond that: bounded, and the scan at
 * most once per KEEP / 4 tests. Mapped and touched by mg_sites_put_init,
 * before the first test, so no test's figures carry it; the boundary's
 * only (mg_sites_test_start, mg_sites_put).
 */
#define KEEP 4096
typedef struct kept {
	uint32_t serial;
	char name[MG_SITES_PIN_TEXT / 2];
} kept;
static kept *keep;
static size_t nkeep;
static uint8_t keep_live[KEEP]; /* keep_tidy's marks */

/* The kept entry of test s, NULL when none (binary search). */
static kept *keep_find(uint32_t s)
{
	size_t lo = 0, hi = nkeep;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (keep[mid].serial == s)
			return &keep[mid];
		if (keep[mid].serial < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Drops the names no live record needs, then the oldest beyond 3/4. */
static void keep_tidy(void)
{
	memset(keep_live, 0, sizeof(keep_live));
	for (size_t i = 0, n = mgs_nsets * WAYS; i < n; i++) {
		if (__atomic_load_n(&mgs_keys[i], __ATOMIC_ACQUIRE) <= KEY_BUSY)
			continue;
		kept *k = keep_find(SERIAL(mgs_recs[i].tk >> 2));
		if (k != NULL)
			keep_live[k - keep] = 1;
	}
	size_t j = 0;
	for (size_t i = 0; i < nkeep; i++)
		if (keep_live[i])
			keep[j++] = keep[i];
	nkeep = j;
	if (nkeep > KEEP / 4 * 3) {
		size_t drop = nkeep - KEEP / 4 * 3;
		memmove(keep, keep + drop, (nkeep - drop) * sizeof(*keep));
		nkeep -= drop;
	}
}

static void keep_put(uint32_t s, const char *name)
{
	if (keep == NULL || !name[0])
		return;
	if (nkeep == KEEP)
		keep_tidy();
	keep[nkeep].serial = s;
	memcpy(keep[nkeep].name, name, strlen(name) + 1);
	nkeep++;
}

static size_t pin_set(uintptr_t p)
{
	uint64_t h = (uint64_t)(p >> 3) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (PIN_SETS - 1);
}

static pin_table *pin_table_get(void)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t != NULL)
		return t;
	t = mg_sites_map(sizeof(*t));
	if (t == NULL)
		return NULL;
	pin_table *none = NULL;
	if (!__atomic_compare_exchange_n(&pin_tab, &none, t, 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		mgs_real_munmap(t, sizeof(*t)); /* another thread mapped it first */
		return none;
	}
	return t;
}

void mg_sites_put_init(void)
{
#ifndef MG_SITES_PROBE /* the probe's programs name no test and pin nothing */
	/* mapped and touched now, before the first test: memguard's own
	 * memory in no test's figures (the price: every host with sites on
	 * carries them, KEEP names and the pin table) */
	keep = mg_sites_map_touched(KEEP * sizeof(*keep));
	pin_tab = mg_sites_map_touched(sizeof(*pin_tab));
#endif
}

/* Copies at most n bytes of s (up to its NUL) to dst at *at, leaving room
 * for the NUL within cap. */
static void pin_copy(char *dst, size_t *at, size_t cap, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] && *at + 1 < cap; i++)
		dst[(*at)++] = s[i];
}

/* "LABEL (TEST)": the label cut to half the text, the test's name to the rest;
 * no label: the item's address. */
static void pin_text(char *dst, const void *item, const char *label)
{
	size_t at = 0, cap = MG_SITES_PIN_TEXT;
	if (label != NULL && *label) {
		pin_copy(dst, &at, cap, label, cap / 2);
	} else {
		char hex[2 + 2 * sizeof(uintptr_t)];
		size_t n = sizeof(hex);
		uintptr_t v = (uintptr_t)item;
		do
			hex[--n] = "0123456789abcdef"[v & 15];
		while ((v >>= 4) != 0);
		hex[--n] = 'x';
		hex[--n] = '0';
		pin_copy(dst, &at, cap, "item at ", 8);
		pin_copy(dst, &at, cap, hex + n, sizeof(hex) - n);
	}
	if (test_name[0]) {
		pin_copy(dst, &at, cap - 1, " (", 2);
		pin_copy(dst, &at, cap - 1, test_name, sizeof(test_name));
		pin_copy(dst, &at, cap, ")", 1);
	}
	dst[at] = '\0';
}

void memguard_pin(const void *block, const void *item, const char *label)
{
	uintptr_t key = (uintptr_t)item;
	if (!__atomic_load_n(&mgs_enabled, __ATOMIC_ACQUIRE) || block == NULL || key <= KEY_BUSY)
		return;
	pin_table *t = pin_table_get();
	if (t == NULL)
		return;
	uintptr_t *k = t->keys + pin_set(key) * WAYS;
	int slot = -1, again;
	for (int w = 0; w < WAYS && slot < 0; w++) { /* pinned again: replaced */
		uintptr_t cur = key;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == key &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			slot = w;
	}
	again = slot >= 0;
	for (int w = 0; w < WAYS && slot < 0; w++) {
		uintptr_t zero = 0;
		if (__atomic_compare_exchange_n(&k[w], &zero, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			slot = w;
	}
	if (slot < 0) {
		__atomic_fetch_add(&pins_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	pin *p = &t->pins[(size_t)(k - t->keys) + (size_t)slot];
	uint32_t s = __atomic_load_n(&mgs_serial, __ATOMIC_RELAXED);
	if (again && p->serial == s) /* replaced: counted once */
		__atomic_fetch_sub(&test_pins, 1, __ATOMIC_RELAXED);
	uintptr_t fr[MG_SITES_DEPTH];
	unsigned nf;
	int was = mgs_t_busy;
	mgs_t_busy = 1;
	WALK(fr, nf);
	p->stack = mg_sites_stack_id(fr, nf);
	mgs_t_busy = was;
	p->block = (uintptr_t)block;
	p->serial = s;
	p->seq = __atomic_fetch_add(&pin_seq, 1, __ATOMIC_RELAXED);
	pin_text(p->text, item, label);
	__atomic_fetch_add(&test_pins, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&k[slot], key, __ATOMIC_RELEASE);
}

void memguard_unpin(const void *block, const void *item)
{
	uintptr_t key = (uintptr_t)item;
	if (!__atomic_load_n(&mgs_enabled, __ATOMIC_ACQUIRE) || key <= KEY_BUSY)
		return;
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return;
	uintptr_t *k = t->keys + pin_set(key) * WAYS;
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = key;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == key &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			pin *p = &t->pins[(size_t)(k - t->keys) + (size_t)w];
			/* the item's pin in another block stays: its address was reused there */
			int mine = p->block == (uintptr_t)block;
			if (mine && p->serial == __atomic_load_n(&mgs_serial, __ATOMIC_RELAXED))
				__atomic_fetch_sub(&test_pins, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&k[w], mine ? 0 : key, __ATOMIC_RELEASE);
			return;
		}
	}
}

void mg_sites_test_start(const char *name, size_t len)
{
	if (!mgs_enabled)
		return;
	if (__atomic_load_n(&mgs_test_live, __ATOMIC_RELAXED) > 0) /* the last one's name */
		keep_put(__atomic_load_n(&mgs_serial, __ATOMIC_RELAXED), test_name);
	size_t n = len < sizeof(test_name) - 1 ? len : sizeof(test_name) - 1;
	if (name == NULL)
		n = 0;
	memcpy(test_name, name ? name : "", n);
	test_name[n] = '\0';
	uint32_t s = SERIAL(mgs_serial + 1);
	__atomic_store_n(&mgs_serial, s, __ATOMIC_RELAXED);
	__atomic_store_n(&test_pins, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mgs_test_live, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mgs_nomem, 0, __ATOMIC_RELAXED);
}

uint64_t mg_sites_nomem(void)
{
	return __atomic_load_n(&mgs_nomem, __ATOMIC_RELAXED);
}

/* A group: the test's records of one stack. */
typedef struct group {
	uint32_t stack; /* index + 1 */
	uint32_t kind;
	uint64_t bytes, count;
} group;

#define NGROUPS 512
static group groups[NGROUPS]; /* mg_sites_put's, the boundary's only */

/* The modules of the frames being sent (dl_iterate_phdr's callback). */
typedef struct modscan {
	uintptr_t *addr; /* the frames, in order */
	int *module;     /* their module's ID, -1 none yet */
	uintptr_t *base; /* their module's load bias */
	size_t n;
	char *dst; /* the module lines */
	size_t cap, len;
	uint32_t nmods;
} modscan;

/* The GNU build-id of a loaded object, from its PT_NOTE segments in memory:
 * its length (hex digits written at hex), 0 when it has none. */
static size_t build_id(const struct dl_phdr_info *info, char *hex)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc =
			    (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if ((const char *)desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz * 2 <= MG_PROTO_BUILD_ID_MAX) {
				for (size_t b = 0; b < nh->n_descsz; b++) {
					hex[2 * b] = "0123456789abcdef"[desc[b] >> 4];
					hex[2 * b + 1] = "0123456789abcdef"[desc[b] & 15];
				}
				return nh->n_descsz * 2;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static int modscan_one(struct dl_phdr_info *info, size_t size, void *v)
{
	(void)size;
	modscan *m = v;
	int id = -1;
	for (size_t f = 0; f < m->n; f++) {
		if (m->module[f] >= 0)
			continue;
		uintptr_t a = m->addr[f];
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
			if (ph->p_type != PT_LOAD || a < lo || a - lo >= ph->p_memsz)
				continue;
			if (id < 0) {
				char hex[MG_PROTO_BUILD_ID_MAX];
				const char *path = info->dlpi_name && *info->dlpi_name
				                       ? info->dlpi_name
				                       : mgs_exe_path;
				mg_msg mm = {.kind = MG_MSG_MODULE,
				             .count = m->nmods,
				             .text = path,
				             .text_len = strlen(path),
				             .build_id = hex};
				mm.build_id_len = build_id(info, hex);
				size_t need = mg_proto_put(NULL, 0, &mm);
				if (mm.text_len == 0 || m->len + need > m->cap)
					return 0; /* no room or no name: its frames are left out */
				mg_proto_put(m->dst + m->len, need, &mm);
				m->len += need;
				id = (int)m->nmods++;
			}
			m->module[f] = id;
			m->base[f] = info->dlpi_addr;
			break;
		}
	}
	return 0;
}

/* The record of the allocation at p, NULL when none is. */
static const rec *rec_at(uintptr_t p)
{
	uintptr_t *k = mgs_keys + mg_sites_set_of(p) * WAYS;
	for (int w = 0; w < WAYS; w++)
		if (__atomic_load_n(&k[w], __ATOMIC_ACQUIRE) == p)
			return &mgs_recs[(size_t)(k - mgs_keys) + (size_t)w];
	return NULL;
}

#define PIN_NONE 0xff
#define PIN_HELD 0x80                      /* pin_group: held block h is PIN_HELD + h */
static uint8_t pin_group[PIN_SETS * WAYS]; /* each pin's group being sent, PIN_NONE */

/* A block an earlier test allocated that live items the running test
 * placed in it hold (what keeps it mapped): sent as `held`. */
typedef struct held {
	uintptr_t block;
	uint64_t bytes;     /* the block's record: its size, */
	uint32_t stack, tk; /* stack, test and kind */
	uint32_t items;     /* the test's live items in it */
	uint32_t seq, by;   /* the first placed: its order and stack */
} held;
static held helds[MG_SITES_TOP];

/*
 * Which of the first nsites groups (of test s) each live pin's block is a
 * record of; and the blocks of earlier tests that test s's live pins hold
 * (at most MG_SITES_TOP, in helds): their number. A pin of an earlier test
 * in an earlier test's block is neither.
 */
static size_t pins_group(uint32_t s, size_t nsites)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return 0;
	size_t nh = 0;
	for (size_t i = 0; i < PIN_SETS * WAYS; i++) {
		pin_group[i] = PIN_NONE;
		if (__atomic_load_n(&t->keys[i], __ATOMIC_ACQUIRE) <= KEY_BUSY)
			continue;
		const pin *p = &t->pins[i];
		if (nsites == 0 && p->serial != s)
			continue;
		size_t h = 0;
		while (h < nh && helds[h].block != p->block)
			h++;
		if (h == nh) {
			const rec *r = rec_at(p->block);
			if (r == NULL)
				continue;
			if (SERIAL(r->tk >> 2) == s) { /* a block of the test's own sites */
				for (size_t g = 0; g < nsites; g++)
					if (groups[g].stack == r->stack &&
					    groups[g].kind == (r->tk & 3))
						pin_group[i] = (uint8_t)g;
				continue;
			}
			if (p->serial != s || nh == MG_SITES_TOP)
				continue;
			helds[nh++] = (held){p->block, r->bytes, r->stack, r->tk, 0, UINT32_MAX, 0};
		}
		helds[h].items++;
		if (p->seq < helds[h].seq) {
			helds[h].seq = p->seq;
			helds[h].by = p->stack;
		}
		pin_group[i] = (uint8_t)(PIN_HELD + h);
	}
	return nh;
}

/* The `pin` lines of group g (a site's index, PIN_HELD + a held block's),
 * the MG_PROTO_PINS_MAX placed first, at dst: their length (those that do
 * not fit in cap left out whole). */
static size_t pins_put(size_t g, char *dst, size_t cap)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return 0;
	size_t first[MG_PROTO_PINS_MAX], n = 0;
	for (size_t i = 0; i < PIN_SETS * WAYS; i++) {
		if (pin_group[i] != g || __atomic_load_n(&t->keys[i], __ATOMIC_ACQUIRE) <= KEY_BUSY)
			continue;
		uint32_t seq = t->pins[i].seq;
		if (n == MG_PROTO_PINS_MAX && seq >= t->pins[first[n - 1]].seq)
			continue;
		size_t j = n < MG_PROTO_PINS_MAX ? n++ : n - 1; /* insertion, by seq */
		for (; j > 0 && t->pins[first[j - 1]].seq > seq; j--)
			first[j] = first[j - 1];
		first[j] = i;
	}
	size_t len = 0;
	for (size_t j = 0; j < n; j++) {
		const char *text = t->pins[first[j]].text;
		mg_msg pm = {.kind = MG_MSG_PIN, .text = text, .text_len = strlen(text)};
		size_t need = mg_proto_put(NULL, 0, &pm);
		if (pm.text_len == 0 || len + need > cap)
			break;
		mg_proto_put(dst + len, need, &pm);
		len += need;
	}
	return len;
}

static void sort_groups(group *g, size_t n)
{
	for (size_t i = 1; i < n; i++) /* insertion: n is small */
		for (size_t j = i; j > 0 && g[j].bytes > g[j - 1].bytes; j--) {
			group t = g[j];
			g[j] = g[j - 1];
			g[j - 1] = t;
		}
}

#define NFRAMES (MG_SITES_TOP * 3 * MG_SITES_DEPTH) /* the sites'; held blocks' and items' */
static uintptr_t fr_addr[NFRAMES], fr_base[NFRAMES];
static int fr_module[NFRAMES];

/* The frames of stack id (+1; 0: none) appended to fr_addr at *nf. */
static void frames_take(uint32_t id, size_t *nf)
{
	for (size_t d = 0; id && d < MG_SITES_DEPTH && mgs_stacks[id - 1][d]; d++)
		fr_addr[(*nf)++] = mgs_stacks[id - 1][d];
}

/* The frames of stack id from fr_addr at *f0 (moved past them) whose module
 * is known, at out: their number. */
static size_t frames_give(uint32_t id, size_t *f0, mg_frame *out)
{
	size_t n = 0;
	for (size_t d = 0; id && d < MG_SITES_DEPTH && mgs_stacks[id - 1][d]; d++, (*f0)++)
		if (fr_module[*f0] >= 0)
			out[n++] =
			    (mg_frame){(uint32_t)fr_module[*f0], fr_addr[*f0] - fr_base[*f0]};
	return n;
}

/* The line m at dst + *len when it fits in cap: 1, else 0. */
static int line_put(char *dst, size_t cap, size_t *len, const mg_msg *m)
{
	size_t need = mg_proto_put(NULL, 0, m);
	if (*len + need > cap)
		return 0;
	mg_proto_put(dst + *len, need, m);
	*len += need;
	return 1;
}

/* The `held`, `heldin`, `heldby` and `pin` lines of the nh held blocks. */
static void held_put(size_t nh, size_t *f0, char *dst, size_t cap, size_t *len)
{
	static mg_frame frames[MG_SITES_DEPTH], by[MG_SITES_DEPTH];
	for (size_t h = 0; h < nh; h++) {
		const held *b = &helds[h];
		size_t n = frames_give(b->stack, f0, frames);
		size_t nb = frames_give(b->by, f0, by);
		mg_msg hm = {.kind = MG_MSG_HELD,
		             .bytes = b->bytes,
		             .count = b->items,
		             .site_kind = (mg_site_kind)(b->tk & 3),
		             .frames = frames,
		             .nframes = n};
		if (n == 0 || !line_put(dst, cap, len, &hm))
			continue;
		const kept *k = keep_find(SERIAL(b->tk >> 2));
		if (k != NULL) {
			mg_msg im = {
			    .kind = MG_MSG_HELDIN, .text = k->name, .text_len = strlen(k->name)};
			line_put(dst, cap, len, &im);
		}
		if (nb) {
			mg_msg bm = {.kind = MG_MSG_HELDBY, .frames = by, .nframes = nb};
			line_put(dst, cap, len, &bm);
		}
		*len += pins_put(PIN_HELD + h, dst + *len, cap - *len);
	}
}

size_t mg_sites_put(char *dst, size_t cap)
{
	static mg_frame frames[MG_SITES_DEPTH];
	if (!mgs_enabled)
		return 0;
	int want_sites =
	    __atomic_load_n(&mgs_test_live, __ATOMIC_RELAXED) >= (int64_t)mgs_min_bytes;
	if (!want_sites && __atomic_load_n(&test_pins, __ATOMIC_RELAXED) == 0)
		return 0; /* nothing left, nothing held: most tests */
	int was = mgs_t_busy;
	mgs_t_busy = 1; /* dl_iterate_phdr may take the loader's lock: nothing of ours inside */
	uint32_t s = __atomic_load_n(&mgs_serial, __ATOMIC_RELAXED);
	size_t ng = 0, nslots = mgs_nsets * WAYS;
	for (size_t i = 0; want_sites && i < nslots; i++) {
		uintptr_t k = __atomic_load_n(&mgs_keys[i], __ATOMIC_ACQUIRE);
		if (k <= KEY_BUSY || SERIAL(mgs_recs[i].tk >> 2) != s)
			continue;
		uint32_t st = mgs_recs[i].stack, kind = mgs_recs[i].tk & 3;
		size_t g;
		for (g = 0; g < ng; g++)
			if (groups[g].stack == st && groups[g].kind == kind)
				break;
		if (g == ng) {
			if (ng == NGROUPS)
				continue;
			groups[ng++] = (group){st, kind, 0, 0};
		}
		groups[g].bytes += mgs_recs[i].bytes;
		groups[g].count++;
	}
	sort_groups(groups, ng);
	size_t nsites = 0, nf = 0;
	for (size_t g = 0; g < ng && nsites < MG_SITES_TOP; g++) {
		if (groups[g].stack == 0)
			continue;
		frames_take(groups[g].stack, &nf);
		groups[nsites++] = groups[g];
	}
	size_t nh = pins_group(s, nsites);
	for (size_t h = 0; h < nh; h++) {
		frames_take(helds[h].stack, &nf);
		frames_take(helds[h].by, &nf);
	}
	for (size_t f = 0; f < nf; f++)
		fr_module[f] = -1;
	modscan m = {fr_addr, fr_module, fr_base, nf, dst, cap, 0, 0};
	if (nf)
		dl_iterate_phdr(modscan_one, &m);
	size_t len = m.len, f0 = 0;
	int full = 0;
	for (size_t g = 0; g < nsites && !full; g++) {
		size_t n = frames_give(groups[g].stack, &f0, frames);
		mg_msg sm = {.kind = MG_MSG_SITE,
		             .bytes = groups[g].bytes,
		             .count = groups[g].count,
		             .site_kind = (mg_site_kind)groups[g].kind,
		             .frames = frames,
		             .nframes = n};
		if (n == 0)
			continue;
		full = !line_put(dst, cap, &len, &sm);
		if (!full)
			len += pins_put(g, dst + len, cap - len);
	}
	if (!full)
		held_put(nh, &f0, dst, cap, &len);
	mgs_t_busy = was;
	return len;
}

#endif /* MG_SITES_NONE */
