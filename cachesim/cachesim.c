/*
** cachesim.c -- the cache model: I1, D1 and a unified last-level cache.
**
** The model (the counts of Callgrind 3.19's sim.c, except as listed below):
**  - Each set keeps its tags ordered most- to least-recently used.  A hit
**    moves the tag to the front; a miss drops the last tag and inserts the
**    new one at the front (exact LRU).  Set = line number mod sets.
**  - Write-allocate.  LL is looked up only after an L1 miss; inclusion is
**    not enforced either way.
**  - An access crossing a line boundary looks up both lines (both LRU
**    states change) but counts as ONE access: a miss if either missed.
**    Without cacheuse the whole access then goes to LL (both lines are
**    referenced there, even one that hit in L1); with cacheuse each line
**    that missed goes to LL on its own, in line order.
**  - Write-back (wb): L1 write-through, LL write-back with a dirty bit.
**    Every D1 write references LL, even on a D1 hit; an LL miss that
**    evicts a dirty line also reports CS_LL_DIRTY_MISS.
**  - Hardware prefetch (hwpref): 8 stream detectors picked by
**    (address / 4096) mod 8.  Each remembers its last LL line and a signed
**    run length; a step of +-1 line extends the run, anything else resets
**    it; from a run of +-2 on, each new line references the LL line 5
**    lines ahead (behind).  Runs only on L1 misses, before the LL lookup --
**    except D1 writes with write-back, which run it before the D1 lookup.
**  - Cache use (cacheuse): every line carries an access count, a 32-bit
**    mask of the bytes touched and an owner.  An L1 hit counts and marks.
**    An L1 miss evicts the LRU line (reporting 1000/count and the unused
**    bytes to its owner, and adding its count and mask to the LL slot it
**    was linked to), loads the new line with count 1, then looks the line
**    up in LL, which links the L1 line to its LL slot.  An LL miss evicts
**    likewise and loads a line with count 0 and no bits: LL gathers use
**    only through merges from L1.
**  - D1 victim observer (cs_set_d1_victim_observer, for the bandwidth
**    model's write-backs): told of every line a D1 miss drops.
**  - LL observer (cs_set_ll_observer, for the miss classifier): told of
**    every line LL is about to look up, demand or prefetch, in order.
**
** Where we differ from the reference on purpose (docs/differences.md):
**  - A way holds no line until one is loaded: empty ways carry a tag no
**    access can have (no_line: the line number ~0 in the plain model; all
**    tag bits set with write-back or cacheuse, i.e. the top 2^tag_shift
**    bytes of the 64-bit address space, never a user address).  The
**    reference fills them with tag 0, so with write-back or cacheuse its
**    lines below 2^tag_shift (2^(line bits + set bits)) "hit" on their
**    first access -- with a 512 MiB LL, everything below 256 MiB.
**  - Tags compare all 64 address bits in every mode.  The reference's
**    write-back and cacheuse tag mask is 32 bits wide, so there lines
**    4 GiB apart alias.
**  - An access straddles when its two ends are in different lines, in
**    every mode (the reference's write-back and cacheuse lookups compare
**    the ends' sets, so with a single set they look up only the first
**    line).
**  - The reference's cacheuse lookup skips LL for the line at address 0
**    (its flush marker); we look it up like any other line.
**  With these, turning on --simulate-wb or --cacheuse changes no I1/D1
**  miss count; LL counts change only through the models' own rules (a
**  write-through reference on a D1 write hit; with cacheuse, a straddle
**  half missing L1 sends only the missing line to LL).
**
** Reference quirks kept on purpose, because counts must match exactly:
**  - The L1-to-LL merge goes to the LL slot found when the L1 line was
**    loaded, even if that slot has since been refilled by another line.
**  - The prefetcher keeps line numbers in 32 bits.  With wb it references
**    LL through the plain (line-number) lookup, whose tags never match the
**    write-back tags: prefetched lines only displace other lines.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "cachesim_int.h"
#include "backdate.h"

#define MIN_LINE_SIZE 16

/* The steps of an L1 miss (eviction, report, load; the set search is
   cs__set_search of cachesim_inline.h) are functions of their own, but a
   call each on the miss path cost 4-11% of the miss-bound runs: within
   this file they are always inlined.  l2.c and streampf.c evict and load
   through the cs__ wrappers. */
#define MISS_STEP static inline __attribute__((always_inline))

/* A miss step's last argument, a constant: which path it is inlined into.
   COMMON is the case of s->common_miss (charging, the late LL fill, and
   nothing else that must see a miss: no write-back, prefetcher, L2,
   observer or owner side array, so no prefetched lines and no hooks).
   There the step's tests of what that case excludes fold away at compile
   time, and common_l1_miss and common_fill are the general steps' code
   for that case alone: one source for both paths (a change of a step is
   made once).  GENERAL tests everything at run time. */
enum { GENERAL = 0, COMMON = 1 };

static void fill_slot_now(cs_sim *s, uint32_t slot);    /* LATE LL FILL */

/* ------------------------------------------------------------------------
** Geometry
*/

/* Exponent of x if x is a power of two, else -1 (x as 32-bit unsigned,
   like the reference's VG_(log2)). */
static int log2_exact(uint32_t x)
{
   int i;
   for (i = 0; i < 32; i++)
      if ((1u << i) == x)
         return i;
   return -1;
}

const char *cs_geometry_check(const cs_geometry *g)
{
   int64_t per_set;

   if (g->line_size == 0)
      return "Cache line size is zero.\n";
   if (g->assoc == 0)
      return "Cache associativity is zero.\n";
   /* 64-bit arithmetic only so absurd option values cannot overflow */
   per_set = (int64_t)g->line_size * g->assoc;
   if ((int64_t)g->size % per_set != 0
       || log2_exact((uint32_t)((int64_t)g->size / g->line_size / g->assoc))
          == -1)
      return "Cache set count is not a power of two.\n";
   if (log2_exact((uint32_t)g->line_size) == -1)
      return "Cache line size is not a power of two.\n";
   if (g->line_size < MIN_LINE_SIZE)
      return "Cache line size is too small.\n";
   if (g->size <= g->line_size)
      return "Cache size <= line size.\n";
   if (g->assoc > (int64_t)g->size / g->line_size)
      return "Cache associativity > (size / line size).\n";
   return 0;
}

static uint32_t floor_pow2(uint32_t x)
{
   x |= x >> 1;
   x |= x >> 2;
   x |= x >> 4;
   x |= x >> 8;
   x |= x >> 16;
   return x - (x >> 1);
}

/* Integer form of the reference's (UInt)(0.5 + sets/new_sets * assoc):
   exact, as new_sets is a power of two. */
void cs_geometry_fixup_host(cs_geometry *g, int *changed)
{
   uint32_t size = (uint32_t)g->size, assoc = (uint32_t)g->assoc;
   uint32_t line = (uint32_t)g->line_size;
   uint32_t sets, new_sets, new_assoc = assoc, new_size;

   if (changed)
      *changed = 0;
   if (size == 0 || assoc == 0 || line == 0)
      return;
   sets = size / (assoc * line);
   if (sets == 0)
      return;
   if (log2_exact(sets) != -1) {
      new_size = line * assoc * sets;
   } else {
      new_sets = floor_pow2(sets);
      new_assoc = (uint32_t)((2 * (uint64_t)sets * assoc + new_sets)
                             / (2 * (uint64_t)new_sets));
      new_size = line * new_assoc * new_sets;
   }
   if (new_size == size && new_assoc == assoc)
      return;
   g->size = (int)new_size;
   g->assoc = (int)new_assoc;
   if (changed)
      *changed = 1;
}

void cs_geometry_defaults(cs_geometry *i1, cs_geometry *d1, cs_geometry *ll)
{
   static const cs_geometry l1 = { 65536, 2, 64 }, l2 = { 262144, 8, 64 };
   if (i1) *i1 = l1;
   if (d1) *d1 = l1;
   if (ll) *ll = l2;
}

/* Appends s to buf[*len] if there is room (keeps one byte for the NUL). */
static void put_str(char *buf, int bufsize, int *len, const char *s)
{
   for (; *s; s++)
      if (*len < bufsize - 1)
         buf[(*len)++] = *s;
}

static void put_int(char *buf, int bufsize, int *len, int v)
{
   char digits[12];
   int n = 0;
   unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;

   do {
      digits[n++] = (char)('0' + u % 10);
      u /= 10;
   } while (u);
   if (v < 0)
      digits[n++] = '-';
   while (n > 0 && *len < bufsize - 1)
      buf[(*len)++] = digits[--n];
}

int cs_geometry_desc(const cs_geometry *g, char *buf, int bufsize)
{
   int len = 0;

   if (bufsize <= 0)
      return 0;
   put_int(buf, bufsize, &len, g->size);
   put_str(buf, bufsize, &len, " B, ");
   put_int(buf, bufsize, &len, g->line_size);
   if (g->assoc == 1) {
      put_str(buf, bufsize, &len, " B, direct-mapped");
   } else {
      put_str(buf, bufsize, &len, " B, ");
      put_int(buf, bufsize, &len, g->assoc);
      put_str(buf, bufsize, &len, "-way associative");
   }
   buf[len] = 0;
   return len;
}

/* ------------------------------------------------------------------------
** Set and init
*/

static unsigned n_slots(const cs_cache *c)
{
   return c->slots;
}

/* Mask bits of the bytes from offset to the line's end (first_bits) and
   from its start to offset (last_bits); an access's bits are
   first_bits[first byte] & last_bits[last byte].  Lines of 32 bytes and
   more: line_size/32 bytes per bit; 16-byte lines: 2 bits per byte. */
static void init_use_masks(cs_cache *c)
{
   int i, n = c->line_size;

   for (i = 0; i < n; i++) {
      if (n >= 32) {
         int per_bit = n / 32;
         c->first_bits[i] = ~0u << (i / per_bit);
         c->last_bits[i] = ~0u >> (31 - i / per_bit);
      } else {
         int bits = 32 / n;
         c->first_bits[i] = ~0u << (i * bits);
         c->last_bits[i] = ~0u >> ((n - 1 - i) * bits);
      }
   }
}

/* Empty state: every way holds NO_LINE (a tag no access has), with
   cacheuse each way's slot number in the low bits; no owners, no use,
   nothing dirty. */
void cs__empty_cache(cs_cache *c, int use)
{
   unsigned i, n = n_slots(c);

   if (c->merge)
      c->merge->pending = 0;    /* its entry is emptied too (a late merge
                                   would be overwritten by the slot's next
                                   load anyway; this keeps it out) */

   for (i = 0; i < n; i++) {
      c->tags[i] = c->no_line | (use ? i % (unsigned)c->assoc : 0);
      if (use) {
         cs__use(c, i)->count = cs__use(c, i)->mask = 0;
         c->line[i].owned = 0;
         c->line[i].ll_slot = 0;
         c->line[i].owner.slot = c->line[i].owner.node = 0;
         if (c->ext)
            c->ext[i].obj = 0, c->ext[i].obj_off = 0;
      }
      if (c->dirty)
         c->dirty[i] = 0;
   }
}

typedef char cs_line_is_4_uses[sizeof(cs_line) == 4 * sizeof(cs_use) ? 1 : -1];

/* addr_tags: tags are address bits (write-back LL, cacheuse), not line
   numbers. */
void cs__init_cache(cs_cache *c, const cs_geometry *g, int use,
                       int addr_tags, int with_dirty, int owner_ext)
{
   const char *err = cs_geometry_check(g);
   int tag_shift;

   if (err)
      cs_fail(err);
   c->size = g->size;
   c->assoc = g->assoc;
   c->line_size = g->line_size;
   c->sets = g->size / g->line_size / g->assoc;
   c->sets_mask = (uint32_t)c->sets - 1;
   c->slots = (uint32_t)c->sets * (uint32_t)c->assoc;
   c->line_mask = (uint32_t)c->line_size - 1;
   c->line_bits = log2_exact((uint32_t)c->line_size);
   tag_shift = c->line_bits + log2_exact((uint32_t)c->sets);
   /* All 64 bits (the reference's mask has 32: see the file comment). */
   c->tag_mask = ~(uint64_t)0 << tag_shift;
   /* Line numbers stay below 2^(64 - line_bits), so ~0 is none of them;
      all tag bits set is an address in the top 2^tag_shift bytes. */
   c->no_line = addr_tags ? c->tag_mask : ~(uint64_t)0;
   c->tags = cs_alloc(sizeof(uint64_t) * n_slots(c));
   if (use) {
      /* Slot numbers live in the bits below the tag. */
      if (tag_shift < 31 && (1 << tag_shift) < c->assoc)
         cs_fail("cachesim: associativity too high for cache use statistics"
                 " (Unsupported cache configuration)");
      c->line_mem = cs_alloc(sizeof(cs_line) * n_slots(c) + 32);
      c->line = (cs_line *)(((uintptr_t)c->line_mem + 31) & ~(uintptr_t)31);
      c->use = &c->line[0].use;
      c->use_shift = 2;   /* cs_line_is_4_uses */
      if (owner_ext)
         c->ext = cs_alloc(sizeof(cs_owner_ext) * n_slots(c));
      c->first_bits = cs_alloc(sizeof(uint32_t) * (unsigned)c->line_size);
      c->last_bits = cs_alloc(sizeof(uint32_t) * (unsigned)c->line_size);
      init_use_masks(c);
   }
   if (with_dirty)
      c->dirty = cs_alloc(n_slots(c));
   cs__empty_cache(c, use);
}

/* A cache without use data and with line-number tags (the L2). */
void cs__init_plain_cache(cs_cache *c, const cs_geometry *g)
{
   cs__init_cache(c, g, 0, 0, 0, 0);
}

void cs__free_cache(cs_cache *c)
{
   cs_free(c->tags);
   if (c->line) {
      cs_free(c->line_mem);
      if (c->use_mem)
         cs_free(c->use_mem);
      if (c->ext)
         cs_free(c->ext);
      cs_free(c->first_bits);
      cs_free(c->last_bits);
   }
   if (c->dirty)
      cs_free(c->dirty);
   if (c->merge)
      cs_free(c->merge);
}

static void prefetch_reset(cs_sim *s)
{
   int i;
   for (i = 0; i < CS_PF_STREAMS; i++) {
      s->pf_last[i] = 0;
      s->pf_seq[i] = 0;
   }
}

static void fill_accost_table(void);

/* An empty late-fill ring (LATE LL FILL). */
static void fill_reset(cs_sim *s)
{
   int i;
   for (i = 0; i < CS_FILL_RING; i++)
      s->fill_slot[i] = CS_NO_FILL;
   s->fill_pending = s->fill_first = 0;
}

/* An L1: with cacheuse its lines' use in an array of its own, 8 bytes a
   slot, which the host keeps in its cache (an MRU hit's update). */
static void init_l1(cs_cache *c, const cs_geometry *g, int use, int owner_ext)
{
   cs__init_cache(c, g, use, use, 0, owner_ext);
   if (use) {
      /* 64-byte aligned: an 8-way set's uses are one host line */
      c->use_mem = cs_alloc(sizeof(cs_use) * n_slots(c) + 64);
      c->use = (cs_use *)(((uintptr_t)c->use_mem + 63) & ~(uintptr_t)63);
      c->use_shift = 0;
   }
}

cs_sim *cs_new(const cs_geometry *i1, const cs_geometry *d1,
               const cs_geometry *ll, cs_options opt, const cs_hooks *hooks)
{
   cs_sim *s = cs_alloc(sizeof(cs_sim));

   s->use = opt.cacheuse != 0;
   s->wb = opt.wb != 0;
   s->hwpref = opt.hwpref != 0;
   s->collect = 1;
   if (hooks)
      s->hooks = *hooks;
   init_l1(&s->i1, i1, s->use, opt.owner_ext);
   init_l1(&s->d1, d1, s->use, opt.owner_ext);
   /* Without cacheuse the dirty bit lives in the tag (bit 0). */
   cs__init_cache(&s->ll, ll, s->use, s->use || s->wb, s->use && s->wb,
              opt.owner_ext);
   if (s->use) {
      s->ll.merge = cs_alloc(sizeof(cs_merge));
      fill_accost_table();
   }
   prefetch_reset(s);
   fill_reset(s);
   cs__probe_update(s);
   return s;
}

/* The LL, which cores made by cs_new_core share (cs_delete_core leaves
   it), then what every simulator has, as for a core. */
void cs_delete(cs_sim *s)
{
   if (!s)
      return;
   cs__free_cache(&s->ll);
   cs_delete_core(s);
}

void cs_set_charging(cs_sim *s, const cs_charging *ch)
{
   cs_settle(s);               /* a late fill is made the way it was begun */
   s->charging = ch != 0;
   if (ch)
      s->charge = *ch;
   cs__probe_update(s);
}

void cs_set_collect(cs_sim *s, int collecting)
{
   cs_settle(s);               /* the evictions of the past see its state */
   s->collect = collecting != 0;
}

void cs_plan_fetch(const cs_sim *s, uint64_t a, unsigned len,
                   cs_fetch_plan *p, uint32_t *second_bits)
{
   const cs_cache *c = &s->i1;
   uint64_t line = a >> c->line_bits, end = a + len - 1;
   int crosses = (end >> c->line_bits) != line;

   if (crosses && (end >> c->line_bits) != line + 1)
      cs__too_wide();
   p->slot0 = (uint32_t)((line & c->sets_mask) * (uint64_t)c->assoc);
   p->key = s->use ? a & c->tag_mask : line;
   /* (without cacheuse the bits are not used: 1 says "planned") */
   p->bits = !s->use ? 1 : crosses ? c->first_bits[a & c->line_mask]
                                   : cs__span_bits(c, a, end);
   *second_bits = !crosses ? 0 : s->use ? c->last_bits[end & c->line_mask] : 1;
}

void cs_set_late_ll_fill(cs_sim *s, int on)
{
   cs_settle(s);
   s->late_fill = on && s->use && !s->wb;
   cs__probe_update(s);
}

uint64_t cs_prefetches(cs_sim *s)
{
   return s->pf_up + s->pf_down;
}

void cs_prefetch_counts(cs_sim *s, uint64_t *up, uint64_t *down)
{
   if (up) *up = s->pf_up;
   if (down) *down = s->pf_down;
}

void cs_set_d1_victim_observer(cs_sim *s, cs_victim_observer fn, void *ctx)
{
   s->d1.victim_obs = fn;
   s->d1.victim_ctx = ctx;
   cs__probe_update(s);
}

/* Whether cs_l1_probe applies: where the miss path can go on from its
   search (use_l1_missed), and no victim observer (D1's only) is to be
   told; and whether its misses may take common_l1_miss.  Called by every
   setter of what they depend on. */
void cs__probe_update(cs_sim *s)
{
   s->probe_ok = s->use && !s->wb && !s->hwpref && !s->ext && !s->d1.victim_obs;
   s->common_miss = s->probe_ok && s->charging && s->late_fill && !s->ll_obs
                    && !s->i1.ext && !s->d1.ext;
}

void cs_set_ll_observer(cs_sim *s, cs_ll_observer fn, void *ctx)
{
   s->ll_obs = fn;
   s->ll_obs_ctx = ctx;
   cs__probe_update(s);
}

/* Tells the LL observer about the lines of [a, a+size-1] that the LL
   lookup about to be made will look at (both lines of a crossing access). */
void cs__observe_now(cs_sim *s, uint64_t a, unsigned size, int kind)
{
   uint64_t line1, line2;
   int bits = kind >= CS_L2_DEMAND ? s->l2.line_bits : s->ll.line_bits;

   line1 = a >> bits;
   line2 = (a + size - 1) >> bits;
   s->ll_obs(s->ll_obs_ctx, line1, kind);
   if (line2 != line1)
      s->ll_obs(s->ll_obs_ctx, line2, kind);
}

void cs__too_wide(void)
{
   cs_fail("cachesim: access straddles more than two cache lines");
}

/* ------------------------------------------------------------------------
** Plain lookups (no cacheuse): tags are line numbers.
*/

static int plain_set_ref(cs_cache *c, uint64_t line)
{
   uint64_t *set = &c->tags[(line & c->sets_mask) * (uint64_t)c->assoc];
   uint64_t carry = set[0], e;
   int i;

   /* MRU way first: by far the most frequent hit. */
   if (carry == line)
      return HIT;
   /* Search and shift in one pass: each way takes the one before it, until
      the line is found (it goes first) or the LRU way falls out. */
   for (i = 1; i < c->assoc; i++) {
      e = set[i];
      set[i] = carry;
      if (e == line) {
         set[0] = line;
         return HIT;
      }
      carry = e;
   }
   if (c->victim_obs && carry != c->no_line)
      c->victim_obs(c->victim_ctx, carry);
   set[0] = line;
   return MISS;
}

int cs__plain_ref(cs_cache *c, uint64_t a, unsigned size)
{
   uint64_t line1 = a >> c->line_bits;
   uint64_t line2 = (a + size - 1) >> c->line_bits;
   int r1, r2;

   if (line1 == line2)
      return plain_set_ref(c, line1);
   if (line1 + 1 != line2)
      cs__too_wide();
   r1 = plain_set_ref(c, line1);
   r2 = plain_set_ref(c, line2);
   return r1 == MISS || r2 == MISS ? MISS : HIT;
}

/* ------------------------------------------------------------------------
** Write-back LL lookups (no cacheuse): tag = address & tag_mask, bit 0 =
** dirty.  A write sets the dirty bit of the line it hits or loads.
*/

static int wb_set_ref(cs_cache *c, uint32_t set_no, uint64_t tag,
                      uint64_t dirty)
{
   uint64_t *set = &c->tags[set_no * (uint64_t)c->assoc];
   uint64_t carry = set[0], e;
   int i;

   if (tag == (carry & ~(uint64_t)1)) {
      set[0] = carry | dirty;
      return HIT;
   }
   for (i = 1; i < c->assoc; i++) {     /* one pass, as in plain_set_ref */
      e = set[i];
      set[i] = carry;
      if (tag == (e & ~(uint64_t)1)) {
         set[0] = e | dirty;
         return HIT;
      }
      carry = e;
   }
   set[0] = tag | dirty;
   return (carry & 1) ? MISS_DIRTY : MISS;
}

int cs__wb_ref(cs_cache *c, uint64_t a, unsigned size, int is_write)
{
   uint64_t line1 = a >> c->line_bits;
   uint64_t line2 = (a + size - 1) >> c->line_bits;
   uint32_t set1 = (uint32_t)line1 & c->sets_mask;
   uint32_t set2 = (uint32_t)line2 & c->sets_mask;
   uint64_t dirty = is_write ? 1 : 0;
   int r1, r2;

   if (line1 == line2)
      return wb_set_ref(c, set1, a & c->tag_mask, dirty);
   if (line1 + 1 != line2)
      cs__too_wide();
   r1 = wb_set_ref(c, set1, a & c->tag_mask, dirty);
   r2 = wb_set_ref(c, set2, (a + size - 1) & c->tag_mask, dirty);
   if (r1 == MISS_DIRTY || r2 == MISS_DIRTY)
      return MISS_DIRTY;
   return r1 == MISS || r2 == MISS ? MISS : HIT;
}

/* ------------------------------------------------------------------------
** Cache-use lookups: tag = address & tag_mask, the way's slot number in
** the bits below.  The slot of a line never changes while it is cached,
** so its use data and owner stay in place while LRU order shuffles tags.
** The set search itself (cs__set_search) is in cachesim_inline.h: the
** probe, inline in the tool, makes it too.
*/

/* The D1 victim observer hears of the line leaving set_no (tag: its tag
   bits).  Out of line, so the set search around it needs no saved
   registers. */
void cs__tell_victim(cs_cache *c, uint32_t set_no, uint64_t tag)
{
   if (tag != c->no_line)
      c->victim_obs(c->victim_ctx, (tag >> c->line_bits) | set_no);
}

static uint32_t popcount32(uint32_t x)
{
   x = x - ((x >> 1) & 0x55555555u);
   x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
   x = (x + (x >> 4)) & 0x0f0f0f0fu;
   return (x * 0x01010101u) >> 24;
}

/* AcCost of a line that got count (> 0) accesses: 1000 / count.  Every
   eviction of a used line reports it, and the host's divide took a
   quarter of evict_ll's time on a streaming run, so the quotients are a
   table (filled by cs_new; 2 KiB, of which the small counts, the common
   ones, stay in the host's cache).  Above 1000 the quotient is 0. */
#define ACCOST_COUNTS 1001
static uint16_t accost_of[ACCOST_COUNTS];

static void fill_accost_table(void)
{
   uint32_t n;
   for (n = 1; n < ACCOST_COUNTS; n++)
      accost_of[n] = (uint16_t)(1000 / n);
}

static inline uint32_t access_cost(uint32_t count)
{
   return count < ACCOST_COUNTS ? accost_of[count] : 0;
}

/* Unused bytes of a line: the unset mask bits, scaled to the line size. */
uint32_t cs__spatial_loss(const cs_cache *c, uint32_t mask)
{
   return ((32 - popcount32(mask)) * (uint32_t)c->line_size) >> 5;
}

/* The owner of line i as the hooks see it: the line's slot and node, and
   the side array's part when there is one. */
static const cs_owner *owner_view(const cs_cache *c, uint32_t i, cs_owner *o)
{
   o->slot = c->line[i].owner.slot;
   o->node = c->line[i].owner.node;
   o->obj = c->ext ? c->ext[i].obj : 0;
   o->obj_off = c->ext ? c->ext[i].obj_off : 0;
   return o;
}

MISS_STEP void set_owner_in(cs_cache *c, uint32_t i, cs_line *ln,
                           const cs_owner *o, int common)
{
   ln->owner.slot = o->slot;
   ln->owner.node = o->node;
   if (!common && c->ext) {
      c->ext[i].obj = o->obj;
      c->ext[i].obj_off = o->obj_off;
   }
}

static void set_owner(cs_cache *c, uint32_t i, const cs_owner *o)
{
   set_owner_in(c, i, &c->line[i], o, GENERAL);
}

/* Slot's use: an L1's array indexed without the shift on the common
   path (cs__l1_use), as the hot paths do. */
MISS_STEP cs_use *step_use(const cs_cache *c, int level, uint32_t slot,
                           int common)
{
   return common && level == 1 ? cs__l1_use(c, slot) : cs__use(c, slot);
}

/* Charging's eviction (cs_charging): on_evict's common case, inline. */
MISS_STEP void charge_evict(const cs_charging *ch, int level, const cs_line *ln,
                            uint32_t accost, uint32_t sploss)
{
   uint64_t *slot = (uint64_t *)((uintptr_t)ln->owner.slot & ~(uintptr_t)1);
   if (!slot)
      return;
   slot[ch->ac[level]] += accost;
   slot[ch->sp[level]] += sploss;
   if (ln->owner.node)
      bd_evict2(ln->owner.node, ch->pair[level], accost, sploss);
}

/* Line i (ln: its entry) leaves with the costs given.  (On the common
   path the slot is loaded at once, which sets owned: the store of 0
   would be dead.) */
MISS_STEP void report_evict(cs_sim *s, int level, cs_cache *c, uint32_t i,
                            cs_line *ln, uint32_t accost, uint32_t sploss,
                            int common)
{
   cs_owner o;
   if (!common && (ln->owned & CS_OWNED_PREFETCH))
      cs__spf_line_leaves(s, c, i);
   if (!common)
      ln->owned = 0;
   if (common || s->charging)
      charge_evict(&s->charge, level, ln, accost, sploss);
   else if (s->hooks.on_evict)
      s->hooks.on_evict(s->hooks.ctx, level, owner_view(c, i, &o), accost,
                        sploss);
}

/* DEFERRED MERGE.  An L1 victim's use goes into the LL entry it links to
   (the reference's rule), an entry in an array of megabytes: a host cache
   miss that the merge used to wait for although nothing reads the entry
   until that LL line leaves.  So the merge is kept in ll.merge and made
   at LL's next merge, an access later, when the entry, asked for at the
   miss (prefetch_merge_entry), has arrived -- or before, when the entry
   itself is read: its LL line leaving (cs__evict_line).  Emptying LL
   drops it, with the entry.  The model's results are those of the
   immediate merge. */
static void merge_now(cs_cache *ll)
{
   cs_merge *m = ll->merge;
   cs_use *merged = cs__use(ll, m->slot);
   merged->mask |= m->mask;
   merged->count += m->count;
   m->pending = 0;
}

static void merge_into(cs_cache *below, uint32_t slot, const cs_use *u)
{
   cs_merge *m = below->merge;
   if (!m) {                    /* an L2: no host miss worth deferring */
      cs__use(below, slot)->mask |= u->mask;
      cs__use(below, slot)->count += u->count;
      return;
   }
   if (m->pending)
      merge_now(below);
   m->slot = slot;
   m->count = u->count;
   m->mask = u->mask;
   m->pending = 1;
}

/* The steps take a slot's entry and use (ln, u) from their caller, which
   finds them once: the tool is built with -fno-strict-aliasing, so a
   step finding them again after a store (the costs charged) would load
   the cache's arrays again. */

/* An owned line of c leaves (slot; ln, u its entry and use): its use is
   reported and merged into below, if any.  (Only the stream
   prefetcher's L1 lines are prefetched.) */
MISS_STEP void line_leaves(cs_sim *s, int level, cs_cache *c, uint32_t slot,
                           cs_line *ln, cs_use *u, cs_cache *below, int common)
{
   uint32_t accost = 0, sploss = 0;

   if (!common && u->count == 0 && (ln->owned & CS_OWNED_PREFETCH)
       && s->collect)
      sploss = (uint32_t)c->line_size;  /* prefetched, never used */
   if (u->count > 0 && s->collect) {
      accost = access_cost(u->count);
      sploss = cs__spatial_loss(c, u->mask);
      if (below) {
         if (s->fill_pending && below == &s->ll)
            fill_slot_now(s, ln->ll_slot);   /* the entry is written */
         merge_into(below, ln->ll_slot, u);
      }
   }
   report_evict(s, level, c, slot, ln, accost, sploss, common);
}

/* The line in slot leaves, if some access loaded it.  (Only LL has a
   merge of its own, and on the common path it always has one.) */
MISS_STEP void evict_entry(cs_sim *s, int level, cs_cache *c, uint32_t slot,
                           cs_line *ln, cs_use *u, cs_cache *below, int common)
{
   if ((common ? level == 2 : c->merge != 0) && c->merge->pending
       && c->merge->slot == slot)
      merge_now(c);             /* the entry is read now */
   if (ln->owned)
      line_leaves(s, level, c, slot, ln, u, below, common);
}

MISS_STEP void evict_line(cs_sim *s, int level, cs_cache *c, uint32_t slot,
                          cs_cache *below, int common)
{
   evict_entry(s, level, c, slot, &c->line[slot],
               step_use(c, level, slot, common), below, common);
}

void cs__evict_line(cs_sim *s, int level, cs_cache *c, uint32_t slot,
                    cs_cache *below)
{
   evict_line(s, level, c, slot, below, GENERAL);
}

/* An owned L1 line leaves into LL, or the L2 of l2.c (the reference's
   order: before the new line's lookup there). */
MISS_STEP void evict_l1(cs_sim *s, cs_cache *c, uint32_t slot)
{
   evict_line(s, 1, c, slot, s->has_l2 ? &s->l2 : &s->ll, GENERAL);
}

void cs__evict_l1(cs_sim *s, cs_cache *c, uint32_t slot)
{
   evict_l1(s, c, slot);
}

MISS_STEP void evict_ll(cs_sim *s, uint32_t slot)
{
   evict_line(s, 2, &s->ll, slot, 0, GENERAL);
}

/* The hook gets the owner as the line now holds it, built from what was
   stored rather than read back: reading the two fields just written as
   one wider load stalls the host (its store buffer cannot forward them).
   (The common path's owner is never NULL: the tool's, or a waiting fill's.)
   slot's entry and use are ln and u; take_ref: with charging, the load
   takes the owner's tree reference (a late fill's was taken at the
   miss). */
MISS_STEP void line_loads(cs_sim *s, cs_cache *c, int level, uint32_t slot,
                          cs_line *ln, cs_use *u, uint32_t count,
                          uint32_t mask, const cs_owner *owner, int take_ref,
                          int common)
{
   static const cs_owner nobody;
   cs_owner o;

   if (!common && !owner)
      owner = &nobody;
   u->count = count;
   u->mask = mask;
   set_owner_in(c, slot, ln, owner, common);
   ln->owned = CS_OWNED;
   if (common || s->charging) {
      if (owner->node && take_ref)
         bd_ref(owner->node);
   } else if (s->hooks.on_load) {
      o.slot = owner->slot;
      o.node = owner->node;
      o.obj = c->ext ? owner->obj : 0;
      o.obj_off = c->ext ? owner->obj_off : 0;
      s->hooks.on_load(s->hooks.ctx, level, &o);
   }
}

MISS_STEP void load_line_ref(cs_sim *s, cs_cache *c, int level,
                             uint32_t slot, uint32_t count, uint32_t mask,
                             const cs_owner *owner, int take_ref, int common)
{
   line_loads(s, c, level, slot, &c->line[slot],
              step_use(c, level, slot, common), count, mask, owner,
              take_ref, common);
}

MISS_STEP void load_line(cs_sim *s, cs_cache *c, int level, uint32_t slot,
                         uint32_t count, uint32_t mask, const cs_owner *owner)
{
   load_line_ref(s, c, level, slot, count, mask, owner, 1, GENERAL);
}

void cs__load_line(cs_sim *s, cs_cache *c, int level, uint32_t slot,
                   uint32_t count, uint32_t mask, const cs_owner *owner)
{
   load_line(s, c, level, slot, count, mask, owner);
}

/* The two halves of a line's LL lookup with cacheuse.  ll_find only
   searches the set and puts the line first (on a miss in the LRU way's
   slot); ll_settle then evicts and loads that slot's entry on a miss, and
   keeps the dirty bits.  Between them the tags are in their new order
   but the slot still holds the old line's use and owner.
   The LRU way is tested before the search: where a loop goes round more
   lines of a set than L1 keeps but no more than LL's ways (a matrix
   column in transpose, a pointer chase), every LL hit is there, and the
   search, which stops where it finds the line, would compare all the
   ways first.  The found way then only rotates to the front, the others
   moving down two at a time.  (transpose-naive 5%, pointer-chase 3%
   faster.) */
MISS_STEP uint32_t ll_find(cs_sim *s, uint64_t memline, int *hit)
{
   cs_cache *c = &s->ll;
   uint32_t set_no = (uint32_t)(memline >> c->line_bits) & c->sets_mask;
   uint64_t *set = &c->tags[set_no * (uint32_t)c->assoc];
   uint64_t lru = set[c->assoc - 1];
   int i;

   if ((lru & c->tag_mask) == (memline & c->tag_mask)) {
      /* two ways a move: one 16-byte load and store per pair */
      for (i = c->assoc - 1; i >= 2; i -= 2) {
         uint64_t two[2];
         __builtin_memcpy(two, &set[i - 2], sizeof two);
         __builtin_memcpy(&set[i - 1], two, sizeof two);
      }
      if (i == 1)
         set[1] = set[0];
      set[0] = lru;
      *hit = 1;
      return set_no * (uint32_t)c->assoc + (uint32_t)(lru & ~c->tag_mask);
   }
   return cs__set_search(c, set_no, memline & c->tag_mask, hit);
}

/* An LL miss's last step: the victim in slot leaves, the new line comes
   in with no use yet (LL gathers use only through merges). */
static void ll_replace(cs_sim *s, uint32_t slot, const cs_owner *owner)
{
   evict_ll(s, slot);
   load_line(s, &s->ll, 2, slot, 0, 0, owner);
}

static unsigned ll_settle(cs_sim *s, uint32_t slot, int hit,
                          const cs_owner *owner, int is_write)
{
   cs_cache *c = &s->ll;
   unsigned res = CS_LL_MISS;

   if (hit) {
      if (c->dirty && is_write)
         c->dirty[slot] = 1;
      return 0;
   }
   if (c->dirty) {
      if (c->dirty[slot])
         res |= CS_LL_DIRTY_MISS;
      c->dirty[slot] = (uint8_t)(is_write != 0);
   }
   ll_replace(s, slot, owner);
   return res;
}

/* One line in LL with cacheuse.  link (if not NULL) receives the LL slot,
   to which the requesting L1 line will merge its use.  Returns
   CS_LL_MISS / CS_LL_DIRTY_MISS bits. */
unsigned cs__use_ll_ref(cs_sim *s, uint64_t memline, uint32_t *link,
                           const cs_owner *owner, int is_write)
{
   int hit;
   uint32_t slot = ll_find(s, memline, &hit);

   if (link)
      *link = slot;
   return ll_settle(s, slot, hit, owner, is_write);
}

static void prefetch(cs_sim *s, uint64_t a, const cs_owner *owner);

/* An L1 miss with cacheuse reads LL's arrays, megabytes that the host's
   caches do not hold: the LL entry the L1 victim merges its use into, the
   LL set of the new line and, on an LL miss, the LL victim's entry.  The
   first address is known at once; asked for now, its host cache miss
   overlaps the set's (stream+reuse 15% faster, the other miss-bound
   benchmarks 2-3%).  Asking for the set's tags too was no gain: the
   search follows at once, and stream+reuse ran 8% slower with it.  Only a
   hint to the host: the model does not change. */
MISS_STEP void prefetch_merge_entry(const cs_sim *s, const cs_cache *c,
                                    uint32_t slot)
{
   if (c->line[slot].owned)
      __builtin_prefetch(&s->ll.line[c->line[slot].ll_slot]);
}

/* LATE LL FILL.  On an LL miss the victim's entry is read at once to
   report its use, and it is in an array of megabytes: the host waits for
   it, although nothing else needs it before the entry is used again.
   With late_fill the miss records the slot and the owner and returns; the
   eviction and the load are made later, the entry having been asked for
   at the miss.  With the hooks, at the next access that is no MRU hit
   (cs__access, use_l1_missed) or when the tool asks (cs_settle), so that
   the hooks' calls are those of the immediate fill, later.  With
   charging, the fills wait in a ring of CS_FILL_RING, in order, each
   made when the ring is full, when its entry is written (a merge into
   it: fill_slot_now) or at cs_settle: in a loop that misses LL at every
   access the entry had no time to arrive by the next miss.  (A slot can
   wait twice, its new line gone again: it is filled twice, in order.)
   The charging then does the hooks' work in another order: additions
   to costs, which commute, and the tree's references -- the new line's
   taken at the miss (its node is the running one, and must not be
   pruned before the fill), the victim's dropped at the fill, as if the
   line had left a little later.  That changes when costs climb to the
   arcs, not what reaches them (the tree's statistics may count a node
   more or less at a time).  The tool need not settle before building an
   owner then (cs_settle_hooks). */

/* A waiting fill of LL slot made: the victim leaves, the new line comes
   in with no use yet.  With charging the owner's tree reference was
   taken at the miss (fill_later). */
MISS_STEP void ll_fill(cs_sim *s, uint32_t slot, const cs_owner *owner,
                       int common)
{
   cs_cache *ll = &s->ll;
   cs_line *ln = &ll->line[slot];
   cs_use *u = cs__use(ll, slot);

   evict_entry(s, 2, ll, slot, ln, u, 0, common);
   line_loads(s, ll, 2, slot, ln, u, 0, 0, owner, common ? 0 : !s->charging,
              common);
}

/* The common miss's fill (s->common_miss). */
static void common_fill(cs_sim *s, uint32_t slot, const cs_owner *owner)
{
   ll_fill(s, slot, owner, COMMON);
}

static void fill_oldest(cs_sim *s)
{
   int i = s->fill_first;
   uint32_t slot = s->fill_slot[i];

   s->fill_slot[i] = CS_NO_FILL;
   s->fill_first = (i + 1) % CS_FILL_RING;
   s->fill_pending--;
   if (s->common_miss)
      common_fill(s, slot, &s->fill_owner[i]);
   else
      ll_fill(s, slot, &s->fill_owner[i], GENERAL);
}

void cs__fill_now(cs_sim *s)
{
   while (s->fill_pending)
      fill_oldest(s);
}

/* (The four compares are the ring: a ring of another size fails to
   compile here.) */
typedef char cs_fill_ring_is_four[CS_FILL_RING == 4 ? 1 : -1];

static int fill_pending_for(const cs_sim *s, uint32_t slot)
{
   const uint32_t *f = s->fill_slot;
   return f[0] == slot || f[1] == slot || f[2] == slot || f[3] == slot;
}

/* A pending fill into LL slot is made, with the older ones, before the
   slot's entry is read or written. */
static void fill_slot_now(cs_sim *s, uint32_t slot)
{
   while (fill_pending_for(s, slot))
      fill_oldest(s);
}

/* The owner is copied field by field: a copy as one wide load would wait
   for the narrow stores that just built it (see load_line). */
static unsigned fill_later(cs_sim *s, uint32_t slot, const cs_owner *owner)
{
   static const cs_owner nobody;
   int i;
   cs_owner *o;

   if (s->fill_pending == (s->charging ? CS_FILL_RING : 1))
      fill_oldest(s);
   i = (s->fill_first + s->fill_pending) % CS_FILL_RING;
   o = &s->fill_owner[i];
   s->fill_slot[i] = slot;
   s->fill_pending++;
   if (!owner)
      owner = &nobody;
   o->slot = owner->slot;
   o->node = owner->node;
   o->obj = owner->obj;
   o->obj_off = owner->obj_off;
   if (s->charging && o->node)
      bd_ref(o->node);
   return CS_LL_MISS;
}

/* An L1 miss (no L2, no prefetch pending) with the LL set searched
   first.  The reference's order is: the L1 victim merges into its LL
   entry, the new line is loaded into L1, then LL is looked up.  The
   search only reorders LL's tags and the merge only writes an entry, so
   searching first changes nothing (even when the merge goes to the very
   entry LL is about to evict: ll_settle reads it after the merge, as
   before), and the hooks are called in the same order.  What it gains:
   the LL victim's entry is known early, and its host cache miss overlaps
   the L1 victim's merge and load instead of following them.
   (The L1 victim's entry is read once, before the search; an L1 has no
   merge of its own.  On the common path an LL hit has no dirty bits to
   keep.) */
MISS_STEP unsigned l1_miss_ll_first(cs_sim *s, cs_cache *c, uint32_t slot,
                                    uint64_t memline, uint32_t bits,
                                    const cs_owner *owner, int is_write,
                                    int common)
{
   cs_line *ln = &c->line[slot];
   cs_use *u = step_use(c, 1, slot, common);
   uint32_t owned = ln->owned, ll_slot;
   int ll_hit;

   if (owned)           /* prefetch_merge_entry */
      __builtin_prefetch(&s->ll.line[ln->ll_slot]);
   if (!common)
      cs__observe(s, memline, 1, CS_LL_DEMAND);
   ll_slot = ll_find(s, memline, &ll_hit);
   if (!ll_hit)
      __builtin_prefetch(&s->ll.line[ll_slot]);
   if (owned)
      line_leaves(s, 1, c, slot, ln, u, &s->ll, common);
   line_loads(s, c, 1, slot, ln, u, 1, bits, owner, 1, common);
   ln->ll_slot = ll_slot;
   if (!ll_hit && (common || s->late_fill))
      return fill_later(s, ll_slot, owner);
   if (common)
      return 0;
   return ll_settle(s, ll_slot, ll_hit, owner, is_write);
}

static unsigned use_l1_missed(cs_sim *s, cs_cache *c, uint32_t slot,
                              uint64_t a, uint32_t bits,
                              const cs_owner *owner, int is_write);

/* One line of an L1 access with cacheuse; bits = the bytes touched. */
static unsigned use_l1_line(cs_sim *s, cs_cache *c, uint32_t set_no,
                            uint64_t a, uint32_t bits, const cs_owner *owner,
                            int is_write)
{
   uint64_t memline = a & ~(uint64_t)c->line_mask;
   int hit;
   uint32_t slot = cs__set_search(c, set_no, a & c->tag_mask, &hit);

   if (hit) {
      cs__use_add(cs__l1_use(c, slot), 1, bits);
      if (s->wb && is_write) {   /* write-through; the L1 line keeps its link */
         if (s->has_l2) {
            cs__use_l2_ref(s, memline, 0, owner, 1);
         } else {
            cs__observe(s, memline, 1, CS_LL_DEMAND);
            cs__use_ll_ref(s, memline, 0, owner, 1);
         }
      }
      return 0;
   }
   return use_l1_missed(s, c, slot, a, bits, owner, is_write);
}

/* THE COMMON MISS.  With charging and the late LL fill on, and nothing
   else that must see a miss (no write-back, prefetcher, L2, D1 victim or
   LL observer, no data objects' owner parts: s->common_miss, set by
   cs__probe_update), an L1 miss of one line takes this path from
   cs_l1_finish: use_l1_missed's steps, the same source inlined with
   COMMON, without the other cases' tests on its way and the registers
   they need saved.  Its owner is never NULL (the tool's, with cacheuse).
   matmul-ijk ran 3%, transpose-naive 7% faster for it. */
static __attribute__((noinline))
unsigned common_l1_miss(cs_sim *s, cs_cache *c, uint32_t slot, uint64_t a,
                        uint32_t bits, const cs_owner *owner)
{
   return CS_L1_MISS | l1_miss_ll_first(s, c, slot, a & ~(uint64_t)c->line_mask,
                                        bits, owner, 0, COMMON);
}

/* The rest of use_l1_line after a miss: the set has made slot (its LRU
   way) the line's, in front. */
static unsigned use_l1_missed(cs_sim *s, cs_cache *c, uint32_t slot,
                              uint64_t a, uint32_t bits,
                              const cs_owner *owner, int is_write)
{
   uint64_t memline = a & ~(uint64_t)c->line_mask;

   if (!s->charging)
      cs_settle(s);       /* the hooks hear of a late fill before this miss */
   if (!s->has_l2 && !s->pf_pending)
      return CS_L1_MISS | l1_miss_ll_first(s, c, slot, memline, bits, owner,
                                           is_write, GENERAL);
   if (!s->has_l2)
      prefetch_merge_entry(s, c, slot);
   cs_settle(s);
   evict_l1(s, c, slot);
   load_line(s, c, 1, slot, 1, bits, owner);
   if (s->pf_pending) {
      s->pf_pending = 0;
      prefetch(s, s->pf_addr, owner);
   }
   if (s->has_l2)
      return CS_L1_MISS | cs__use_l2_ref(s, memline, &c->line[slot].ll_slot,
                                         owner, is_write);
   cs__observe(s, memline, 1, CS_LL_DEMAND);
   return CS_L1_MISS | cs__use_ll_ref(s, memline, &c->line[slot].ll_slot, owner,
                                  is_write);
}

static unsigned use_access(cs_sim *s, cs_cache *c, uint64_t a, unsigned size,
                           const cs_owner *owner, int is_write)
{
   uint64_t end = a + size - 1;
   uint64_t line1 = a >> c->line_bits, line2 = end >> c->line_bits;
   uint32_t set1 = (uint32_t)line1 & c->sets_mask;
   uint32_t set2 = (uint32_t)line2 & c->sets_mask;
   uint32_t first = c->first_bits[a & c->line_mask];
   uint32_t last = c->last_bits[end & c->line_mask];
   unsigned r;

   s->pf_pending = 0;
   if (s->hwpref) {
      if (s->wb && is_write) {
         prefetch(s, a, owner);
      } else {
         s->pf_pending = 1;
         s->pf_addr = a;
      }
   }
   if (line1 == line2)
      return use_l1_line(s, c, set1, a, first & last, owner, is_write);
   if (line1 + 1 != line2)
      cs__too_wide();
   r = use_l1_line(s, c, set1, a, first, owner, is_write);
   return r | use_l1_line(s, c, set2, end, last, owner, is_write);
}

/* ------------------------------------------------------------------------
** Hardware prefetch
*/

static void prefetch_ref(cs_sim *s, uint64_t a, const cs_owner *owner)
{
   if (s->use) {
      cs__observe(s, a, 1, CS_LL_PREFETCH);
      cs__use_ll_ref(s, a & ~(uint64_t)s->ll.line_mask, 0, owner, 0);
   } else {
      cs__observe(s, a, 1, s->wb ? CS_LL_PREFETCH_BLIND : CS_LL_PREFETCH);
      cs__plain_ref(&s->ll, a, 1);   /* also with wb: the reference's lookup */
   }
}

static void prefetch(cs_sim *s, uint64_t a, const cs_owner *owner)
{
   uint32_t stream = (uint32_t)(a >> 12) % CS_PF_STREAMS;
   uint32_t line = (uint32_t)(a >> s->ll.line_bits);
   uint32_t last = s->pf_last[stream];
   int32_t *seq = &s->pf_seq[stream];

   if (line == last)
      return;
   if (*seq == 0) {
      if (last + 1 == line)
         (*seq)++;
      else if (last - 1 == line)
         (*seq)--;
   } else if (*seq > 0) {
      if (last + 1 == line) {
         if (++*seq >= 2) {
            s->pf_up++;
            prefetch_ref(s, a + 5 * (uint64_t)s->ll.line_size, owner);
         }
      } else {
         *seq = 0;
      }
   } else {
      if (last - 1 == line) {
         if (--*seq <= -2) {
            s->pf_down++;
            prefetch_ref(s, a - 5 * (uint64_t)s->ll.line_size, owner);
         }
      } else {
         *seq = 0;
      }
   }
   s->pf_last[stream] = line;
}

void cs__hw_prefetch(cs_sim *s, uint64_t a, const cs_owner *owner)
{
   prefetch(s, a, owner);
}

/* ------------------------------------------------------------------------
** Accesses
*/

static unsigned plain_access(cs_sim *s, cs_cache *c, uint64_t a,
                             unsigned size, int is_write)
{
   int wb_write = s->wb && is_write;

   if (s->hwpref && wb_write)
      prefetch(s, a, 0);
   if (cs__plain_ref(c, a, size) == HIT) {
      if (wb_write) {            /* write-through makes the LL line dirty */
         cs__observe(s, a, size, CS_LL_DEMAND);
         cs__wb_ref(&s->ll, a, size, 1);
      }
      return 0;
   }
   if (s->hwpref && !wb_write)
      prefetch(s, a, 0);
   cs__observe(s, a, size, CS_LL_DEMAND);
   if (!s->wb)
      return cs__plain_ref(&s->ll, a, size) == HIT ? CS_L1_MISS
                                            : CS_L1_MISS | CS_LL_MISS;
   switch (cs__wb_ref(&s->ll, a, size, is_write)) {
   case HIT:  return CS_L1_MISS;
   case MISS: return CS_L1_MISS | CS_LL_MISS;
   default:   return CS_L1_MISS | CS_LL_MISS | CS_LL_DIRTY_MISS;
   }
}

unsigned cs__access(cs_sim *s, cs_cache *l1, uint64_t a, unsigned size,
                    const cs_owner *owner, int is_write)
{
   cs_settle(s);
   if (s->use) {
      if (s->spf && l1 == &s->d1)   /* the stream prefetcher: streampf.c */
         return cs__spf_use_access(s, a, size, owner, is_write);
      return use_access(s, l1, a, size, owner, is_write);
   }
   if (s->ext)                  /* an L2 or the stream prefetcher: l2.c */
      return cs__access_ext(s, l1, a, size, is_write);
   return plain_access(s, l1, a, size, is_write);
}

/* The split miss (cs_l1_probe, cs_l1_finish): the probe is use_l1_line's
   set search, made before the owner exists; where it does not apply,
   cs_l1_finish makes the whole access. */
/* The rest of a straddling access whose probe missed a line (the
   first, with the second still to look up, or the second). */
static __attribute__((noinline))
unsigned finish_straddle(cs_sim *s, const cs_probe *p, uint64_t a,
                         unsigned size, const cs_owner *owner, int is_write)
{
   cs_cache *c = p->l1;
   uint64_t end = a + size - 1;
   uint32_t slot = p->slot & ~(uint32_t)(CS_PROBE_SECOND | CS_PROBE_THEN_SECOND);
   unsigned r;

   if (p->slot & CS_PROBE_SECOND)
      return use_l1_missed(s, c, slot, end, p->bits, owner, is_write);
   r = use_l1_missed(s, c, slot, a, p->bits, owner, is_write);
   return r | use_l1_line(s, c, (uint32_t)(end >> c->line_bits) & c->sets_mask,
                          end, c->last_bits[end & c->line_mask], owner,
                          is_write);
}

unsigned cs_l1_finish(cs_sim *s, const cs_probe *p, uint64_t a,
                      unsigned size, const cs_owner *owner, int is_write)
{
   if (!p->bits)
      return cs__access(s, p->l1, a, size, owner, is_write);
   if (p->slot & (CS_PROBE_SECOND | CS_PROBE_THEN_SECOND))
      return finish_straddle(s, p, a, size, owner, is_write);
   if (s->common_miss && owner)
      return common_l1_miss(s, p->l1, p->slot, a, p->bits, owner);
   return use_l1_missed(s, p->l1, p->slot, a, p->bits, owner, is_write);
}

/* The probe of an access crossing into the next line: use_access's two
   use_l1_line calls, each ending at a miss (the line and what is left
   recorded in p) or a hit.  The prefetcher, the only thing use_access
   does before them, is off where the probe applies. */
cs_probe cs__probe_straddle(cs_cache *c, uint64_t a, uint64_t end)
{
   uint32_t first = c->first_bits[a & c->line_mask];
   uint32_t last = c->last_bits[end & c->line_mask];
   cs_probe p = { c, 0, 0 };

   if ((end >> c->line_bits) != (a >> c->line_bits) + 1)
      return p;                 /* wider than a line: cs__access says so */
   if (!cs__probe_line(c, a, first, &p.slot)) {
      p.slot |= CS_PROBE_THEN_SECOND;
      p.bits = first;
   } else if (!cs__probe_line(c, end, last, &p.slot)) {
      p.slot |= CS_PROBE_SECOND;
      p.bits = last;
   } else {
      p.slot = CS_PROBE_HIT;
   }
   return p;
}

/* ------------------------------------------------------------------------
** Flush and clear
*/

void cs_flush_l1(cs_sim *s)
{
   unsigned i;
   cs_settle(s);

   if (s->use) {
      for (i = 0; i < n_slots(&s->i1); i++)
         cs__evict_l1(s, &s->i1, i);
      for (i = 0; i < n_slots(&s->d1); i++)
         cs__evict_l1(s, &s->d1, i);
   }
   if (s->spf)
      cs__spf_drop_d1(s);
   cs__empty_cache(&s->i1, s->use);
   cs__empty_cache(&s->d1, s->use);
   if (s->has_l2)
      cs__flush_l2(s);
}

void cs_flush(cs_sim *s)
{
   unsigned i;

   cs_flush_l1(s);
   if (s->use)
      for (i = 0; i < n_slots(&s->ll); i++)
         evict_ll(s, i);
   cs__empty_cache(&s->ll, s->use);
}

void cs__drop_owners(cs_sim *s, cs_cache *c, int level)
{
   unsigned i;
   for (i = 0; i < n_slots(c); i++)
      if (c->line[i].owned)
         report_evict(s, level, c, i, &c->line[i], 0, 0, GENERAL);
}

void cs__forget_in(cs_cache *c, int level,
                      int (*forget)(void *, int, const cs_owner *), void *ctx)
{
   static const cs_owner nobody;
   unsigned i;
   for (i = 0; i < n_slots(c); i++) {
      cs_line *ln = &c->line[i];
      cs_owner o;
      if (ln->owned && (ln->owner.slot || ln->owner.node)
          && forget(ctx, level, owner_view(c, i, &o)))
         set_owner(c, i, &nobody);      /* still owned: it merges and reports */
   }
}

void cs_forget_owners(cs_sim *s,
                      int (*forget)(void *ctx, int level, const cs_owner *),
                      void *ctx)
{
   if (!s->use)
      return;
   cs_settle(s);
   cs__forget_in(&s->i1, 1, forget, ctx);
   cs__forget_in(&s->d1, 1, forget, ctx);
   if (s->has_l2)
      cs__forget_in(&s->l2, CS_LEVEL_L2, forget, ctx);
   cs__forget_in(&s->ll, 2, forget, ctx);
}

void cs_clear(cs_sim *s)
{
   cs_settle(s);
   if (s->use) {
      cs__drop_owners(s, &s->i1, 1);
      cs__drop_owners(s, &s->d1, 1);
      if (s->has_l2)
         cs__drop_owners(s, &s->l2, CS_LEVEL_L2);
      cs__drop_owners(s, &s->ll, 2);
   }
   if (s->spf) {
      cs__spf_drop_d1(s);
      cs__spf_reset(s->spf);
   }
   cs__empty_cache(&s->i1, s->use);
   cs__empty_cache(&s->d1, s->use);
   if (s->has_l2)
      cs__empty_cache(&s->l2, s->use);
   cs__empty_cache(&s->ll, s->use);
   prefetch_reset(s);
}

/* ------------------------------------------------------------------------
** Cores with private I1/D1 over one LL (--private-caches, coherence.c).
** A core is a cs_sim of its own whose `ll` describes the SAME arrays as
** the first core's: all LL state lives in those arrays, the descriptor
** only holds constants, so copying it shares the cache.
*/

cs_sim *cs_new_core(const cs_sim *first)
{
   cs_sim *s = cs_alloc(sizeof(cs_sim));
   cs_geometry i1 = { first->i1.size, first->i1.assoc, first->i1.line_size };
   cs_geometry d1 = { first->d1.size, first->d1.assoc, first->d1.line_size };
   int ext = first->i1.ext != 0;

   s->use = first->use;
   s->wb = first->wb;
   s->hwpref = first->hwpref;
   s->collect = first->collect;
   s->hooks = first->hooks;
   s->charging = first->charging;
   s->charge = first->charge;
   s->late_fill = first->late_fill;   /* a ring of its own (cs_new_core) */
   s->ll_obs = first->ll_obs;
   s->ll_obs_ctx = first->ll_obs_ctx;
   init_l1(&s->i1, &i1, s->use, ext);
   init_l1(&s->d1, &d1, s->use, ext);
   s->d1.victim_obs = first->d1.victim_obs;
   s->d1.victim_ctx = first->d1.victim_ctx;
   s->ll = first->ll;
   prefetch_reset(s);
   fill_reset(s);
   if (first->has_l2) {
      cs_geometry l2 = { first->l2.size, first->l2.assoc, first->l2.line_size };
      cs_set_l2(s, &l2);
   }
   if (first->spf)
      cs_set_stream_prefetch(s, cs__spf_distance(first->spf));
   cs__probe_update(s);
   return s;
}

void cs_delete_core(cs_sim *s)
{
   if (!s)
      return;
   cs__free_cache(&s->i1);
   cs__free_cache(&s->d1);
   if (s->has_l2)
      cs__free_cache(&s->l2);
   if (s->spf)
      cs__spf_delete(s->spf);
   cs_free(s);
}

/* The way of set `set` (its first tag) holding the line of a, or -1.  The
   comparison is the lookups' own (line numbers, or masked tags). */
static int find_way(const cs_sim *s, const cs_cache *c, const uint64_t *set,
                    uint64_t a)
{
   int i;

   for (i = 0; i < c->assoc; i++)
      if (s->use ? (set[i] & c->tag_mask) == (a & c->tag_mask)
                 : set[i] == a >> c->line_bits)
         return i;
   return -1;
}

static uint64_t *set_of(const cs_cache *c, uint64_t a)
{
   return &c->tags[((a >> c->line_bits) & c->sets_mask) * (uint64_t)c->assoc];
}

int cs_d1_holds(const cs_sim *s, uint64_t a)
{
   return find_way(s, &s->d1, set_of(&s->d1, a), a) >= 0;
}

/* The line leaves like an evicted one (with cacheuse: reported and merged
   into LL), its way becomes empty -- the tag of an empty cache, no_line --
   and the
   least recently used of its set, so the set's next miss fills it. */
int cs_d1_invalidate(cs_sim *s, uint64_t a)
{
   cs_cache *c = &s->d1;
   uint64_t *set = set_of(c, a), e;
   int i = find_way(s, c, set, a);

   if (i < 0)
      return 0;
   cs_settle(s);
   e = set[i];
   if (s->use) {
      uint32_t slot = (uint32_t)((a >> c->line_bits) & c->sets_mask)
                      * (uint32_t)c->assoc + (uint32_t)(e & ~c->tag_mask);
      static const cs_owner nobody;
      cs__evict_l1(s, c, slot);
      cs__use(c, slot)->count = cs__use(c, slot)->mask = 0;
      c->line[slot].owned = 0;
      set_owner(c, slot, &nobody);
      e = c->no_line | (e & ~c->tag_mask);   /* as empty_cache */
   } else {
      e = c->no_line;
   }
   for (; i < c->assoc - 1; i++)
      set[i] = set[i + 1];
   set[c->assoc - 1] = e;
   return 1;
}
