/*
** bandwidth.c -- windows, exact histograms, dominance and the machine
** file of the bandwidth model (rules and invariants: bandwidth.h).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "bandwidth.h"
#include "cachesim.h"     /* cs_alloc, cs_free, cs_fail */

const char *const bw_path_name[BW_DOM_PATHS] = {
   "core<-L1", "core->L1", "L1<-LL", "L1->LL", "L1<-L1", "LL<-mem", "LL->mem",
   "flop", "LL<-mem all", "LL->mem all",
};

const int bw_dom_order[BW_DOM_PATHS] = {
   BW_CORE_RD, BW_CORE_WR, BW_L1_RD, BW_L1_WR, BW_L1_L1, BW_MEM_RD, BW_MEM_WR,
   BW_ALL_RD, BW_ALL_WR, BW_FLOP,
};

/* ------------------------------------------------------------------------
** The map (bandwidth.h)
*/

#define MAP_MIN_CAP 16u

static uint32_t map_home(const bw_map *m, uint64_t key)
{
   return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

/* The slot holding key, or the empty slot ending its probe (cap > 0). */
static uint32_t map_probe(const bw_map *m, uint64_t key)
{
   uint32_t i = map_home(m, key);

   while (m->keys[i] != key && m->keys[i] != BW_MAP_NONE)
      i = (i + 1) & (m->cap - 1);
   return i;
}

static void map_alloc(bw_map *m, uint32_t cap)
{
   m->cap = cap;
   m->used = 0;
   m->keys = cs_alloc(cap * sizeof(uint64_t));
   m->vals = cs_alloc(cap * sizeof(uint64_t));
   bw_map_clear(m);
}

static void map_grow(bw_map *m)
{
   bw_map old = *m;
   uint32_t i;

   map_alloc(m, old.cap ? 2 * old.cap : MAP_MIN_CAP);
   for (i = 0; i < old.cap; i++)
      if (old.keys[i] != BW_MAP_NONE)
         bw_map_set(m, old.keys[i], old.vals[i]);
   bw_map_free(&old);
}

uint64_t *bw_map_find(const bw_map *m, uint64_t key)
{
   uint32_t i;

   if (!m->cap)
      return 0;
   i = map_probe(m, key);
   return m->keys[i] == key ? &m->vals[i] : 0;
}

uint64_t *bw_map_slot(bw_map *m, uint64_t key)
{
   uint32_t i;

   if (2 * (m->used + 1) > m->cap)
      map_grow(m);
   i = map_probe(m, key);
   if (m->keys[i] == BW_MAP_NONE) {
      m->keys[i] = key;
      m->vals[i] = 0;
      m->used++;
   }
   return &m->vals[i];
}

int bw_map_del(bw_map *m, uint64_t key)
{
   uint32_t i, j, mask = m->cap - 1;

   if (!m->cap)
      return 0;
   i = map_probe(m, key);
   if (m->keys[i] != key)
      return 0;
   m->used--;
   /* shift back the entries that probed past slot i */
   for (j = (i + 1) & mask; m->keys[j] != BW_MAP_NONE; j = (j + 1) & mask) {
      uint32_t home = map_home(m, m->keys[j]);
      /* the entry at j may move to i if its home is not in (i, j] */
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
         m->keys[i] = m->keys[j];
         m->vals[i] = m->vals[j];
         i = j;
      }
   }
   m->keys[i] = BW_MAP_NONE;
   return 1;
}

void bw_map_clear(bw_map *m)
{
   uint32_t i;

   for (i = 0; i < m->cap; i++)
      m->keys[i] = BW_MAP_NONE;
   m->used = 0;
}

void bw_map_free(bw_map *m)
{
   if (m->keys) {
      cs_free(m->keys);
      cs_free(m->vals);
   }
   m->keys = m->vals = 0;
   m->cap = m->used = 0;
}

/* ------------------------------------------------------------------------
** Histograms
*/

static void dense_grow(bw_hist *h, uint64_t v)
{
   uint32_t n = h->dense_n ? h->dense_n : 256, i;
   uint64_t *d;

   while (n <= v)
      n *= 2;
   d = cs_alloc(n * sizeof(uint64_t));
   for (i = 0; i < h->dense_n; i++)
      d[i] = h->dense[i];
   if (h->dense)
      cs_free(h->dense);
   h->dense = d;
   h->dense_n = n;
}

static void hist_put(bw_hist *h, uint64_t v, uint64_t n)
{
   v >>= h->shift;
   if (v >= BW_DENSE) {
      bw_map_add(&h->big, v, n);
      return;
   }
   if (v >= h->dense_n)
      dense_grow(h, v);
   h->dense[v] += n;
}

void bw_hist_add(bw_hist *h, uint64_t v, uint64_t n)
{
   if (h->run_n && h->run_v == v) {
      h->run_n += n;
      return;
   }
   if (h->run_n)
      hist_put(h, h->run_v, h->run_n);
   h->run_v = v;
   h->run_n = n;
}

/* n more units of value v: a dense value straight to its count (a miss
   path's sums alternate: an open run's compare would mispredict and
   flush it every time; counts add up in any order). */
static inline void hist_count(bw_hist *h, uint64_t v, uint64_t n)
{
   if (v >> h->shift < h->dense_n)
      h->dense[v >> h->shift] += n;
   else
      bw_hist_add(h, v, n);
}

/* Shell sort of the hash table's keys (only when writing). */
static void sort_keys(uint64_t *k, uint32_t n)
{
   static const uint32_t gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };
   uint32_t g, i, j;

   for (g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
      for (i = gaps[g]; i < n; i++) {
         uint64_t x = k[i];
         for (j = i; j >= gaps[g] && k[j - gaps[g]] > x; j -= gaps[g])
            k[j] = k[j - gaps[g]];
         k[j] = x;
      }
}

void bw_hist_each(bw_hist *h, void (*f)(void *ctx, uint64_t v, uint64_t n),
                  void *ctx)
{
   uint32_t i, n = 0;
   uint64_t *k;

   if (h->run_n) {
      hist_put(h, h->run_v, h->run_n);
      h->run_n = 0;
   }
   for (i = 0; i < h->dense_n; i++)
      if (h->dense[i])
         f(ctx, (uint64_t)i << h->shift, h->dense[i]);
   if (!h->big.used)
      return;
   k = cs_alloc(h->big.used * sizeof(uint64_t));
   for (i = 0; i < h->big.cap; i++)
      if (h->big.keys[i] != BW_MAP_NONE)
         k[n++] = h->big.keys[i];
   sort_keys(k, n);
   for (i = 0; i < n; i++)
      f(ctx, k[i] << h->shift, *bw_map_find(&h->big, k[i]));
   cs_free(k);
}

static void add_count(void *dst, uint64_t v, uint64_t n)
{
   bw_hist_add(dst, v, n);
}

void bw_hist_add_hist(bw_hist *dst, bw_hist *src)
{
   bw_hist_each(src, add_count, dst);
}

void bw_hist_free(bw_hist *h)
{
   if (h->dense)
      cs_free(h->dense);
   bw_map_free(&h->big);
   h->dense = 0;
   h->dense_n = 0;
   h->run_n = 0;
}

/* ------------------------------------------------------------------------
** Limits and the machine file
*/

void bw_limits_prepare(bw_limits *l, uint32_t w)
{
   int p;

   l->any = 0;
   l->n_order = 0;
   for (p = 0; p < BW_DOM_PATHS; p++)
      if (l->has[bw_dom_order[p]])
         l->order[l->n_order++] = bw_dom_order[p];
   for (p = 0; p < BW_DOM_PATHS; p++) {
      double x = l->per_unit[p] * w;
      if (!l->has[p])
         continue;
      l->any = 1;
      l->above[p] = x >= 1.8e19 ? ~(uint64_t)0 : (uint64_t)x;   /* floor */
      l->inv[p] = 1.0 / x;
   }
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A positive decimal number ("86.4e9", "4", "0.5") filling [s, e);
   0 if malformed or not positive. */
static int parse_number(const char *s, const char *e, double *out)
{
   double v = 0, scale = 1;
   int digits = 0, ex = 0, exsign = 1, exdigits = 0;

   if (s < e && *s == '+')
      s++;
   for (; s < e && *s >= '0' && *s <= '9'; s++, digits++)
      v = v * 10 + (*s - '0');
   if (s < e && *s == '.')
      for (s++; s < e && *s >= '0' && *s <= '9'; s++, digits++) {
         scale /= 10;
         v += (*s - '0') * scale;
      }
   if (!digits)
      return 0;
   if (s < e && (*s == 'e' || *s == 'E')) {
      s++;
      if (s < e && (*s == '+' || *s == '-'))
         exsign = *s++ == '-' ? -1 : 1;
      for (; s < e && *s >= '0' && *s <= '9' && ex < 400; s++, exdigits++)
         ex = ex * 10 + (*s - '0');
      if (!exdigits)
         return 0;
   }
   if (s != e)
      return 0;
   for (; ex > 0; ex--)
      v = exsign > 0 ? v * 10 : v / 10;
   if (!(v > 0) || v > 1e300)
      return 0;
   *out = v;
   return 1;
}

/* The machine file's keys: the paths (bytes per second), then these. */
enum { K_CLOCK = BW_DOM_PATHS, K_IPC, K_FPC, K_NAME, K_KEYS };
static const char *const key_name[K_KEYS] = {
   "core<-L1", "core->L1", "L1<-LL", "L1->LL", "L1<-L1", "LL<-mem", "LL->mem",
   "", /* flop: given as flop-per-cycle */
   "LL<-mem all", "LL->mem all",
   "clock", "instr-per-cycle", "flop-per-cycle", "name",
};

static int key_of(const char *s, const char *e)
{
   int k;

   for (k = 0; k < K_KEYS; k++) {
      const char *n = key_name[k], *p = s;
      if (!*n)
         continue;
      while (p < e && *n && *p == *n)
         p++, n++;
      if (p == e && !*n)
         return k;
   }
   return -1;
}

/* One "key: value" line in [s, e) (not empty, not a comment). */
static const char *parse_line(const char *s, const char *e, double *val,
                              int *seen)
{
   const char *colon = s, *ke, *vs, *ve;
   int k;

   while (colon < e && *colon != ':')
      colon++;
   if (colon == e)
      return "expected 'key: value'";
   for (ke = colon; ke > s && is_space(ke[-1]); ke--)
      ;
   k = key_of(s, ke);
   if (k < 0)
      return "unknown key";
   if (seen[k])
      return "key given twice";
   seen[k] = 1;
   if (k == K_NAME)
      return 0;
   for (vs = colon + 1; vs < e && is_space(*vs); vs++)
      ;
   for (ve = vs; ve < e && *ve != '#'; ve++)
      ;
   while (ve > vs && is_space(ve[-1]))
      ve--;
   if (!parse_number(vs, ve, &val[k]))
      return "expected a positive number";
   return 0;
}

int bw_parse_machine(const char *text, unsigned long len, int flop_unit,
                     bw_limits *out, const char **msg)
{
   double val[K_KEYS];
   int seen[K_KEYS], k, line = 0;
   const char *s = text, *end = text + len;
   double rate;

   for (k = 0; k < K_KEYS; k++)
      seen[k] = 0, val[k] = 0;
   while (s < end) {
      const char *e = s, *b;
      while (e < end && *e != '\n')
         e++;
      line++;
      for (b = s; b < e && is_space(*b); b++)
         ;
      if (b < e && *b != '#') {
         const char *why = parse_line(b, e, val, seen);
         if (why) {
            *msg = why;
            return line;
         }
      }
      s = e < end ? e + 1 : e;
   }
   if (!seen[K_CLOCK]) {
      *msg = "'clock' missing";
      return -1;
   }
   if (!seen[flop_unit ? K_FPC : K_IPC]) {
      *msg = flop_unit ? "'flop-per-cycle' missing (the rate of --bandwidth-unit=flop)"
                       : "'instr-per-cycle' missing (the rate of --bandwidth-unit=instr)";
      return -1;
   }
   rate = val[flop_unit ? K_FPC : K_IPC];
   for (k = 0; k < BW_DOM_PATHS; k++) {
      out->has[k] = k != BW_FLOP && seen[k];
      out->per_unit[k] = out->has[k] ? val[k] / (val[K_CLOCK] * rate) : 0;
   }
   if (seen[K_FPC]) {
      out->has[BW_FLOP] = 1;
      out->per_unit[BW_FLOP] = flop_unit ? 1.0 : val[K_FPC] / val[K_IPC];
   }
   out->peak = val[K_CLOCK] * rate;
   return 0;
}

/* ------------------------------------------------------------------------
** One core
*/

void bw_core_init(bw_core *c, uint32_t w)
{
   char *p = (char *)c;
   unsigned long i;
   int k;

   for (i = 0; i < sizeof *c; i++)
      p[i] = 0;
   c->w = w;
   c->next_out = ~(uint64_t)0;
   c->dom = -1;
   for (k = 0; k < BW_PATHS; k++) {
      c->win[k].qu = cs_alloc((unsigned long)w * sizeof(uint64_t));
      c->win[k].qr = cs_alloc((unsigned long)w * sizeof(uint32_t));
   }
}

void bw_core_free(bw_core *c)
{
   int p;

   for (p = 0; p < BW_PATHS; p++) {
      if (c->sums[p]) {
         if (c->ring[p]) {
            cs_free(c->ring[p]);
            cs_free(c->ring_nz[p]);
         }
         cs_free(c->sums[p]);
      }
      if (c->ev[p])
         cs_free(c->ev[p]);
      cs_free(c->win[p].qu);
      cs_free(c->win[p].qr);
      bw_hist_free(&c->hist[p]);
   }
   for (p = 0; p < BW_DOM_PATHS; p++)
      bw_hist_free(&c->dom_hist[p]);
   if (c->log_unit) {
      cs_free(c->log_unit);
      cs_free(c->log_end);
      cs_free(c->log_key);
   }
}

void bw_finish(bw_core *c)
{
   uint64_t end = c->units + c->w;
   int p;

   if (c->finished)
      return;
   c->finished = 1;
   bw__dominance_change(c, -2, 0, c->units);   /* counts the last state */
   bw__leave(c, end);
   for (p = 0; p < BW_PATHS; p++)
      bw__window_change(&c->hist[p], &c->win[p], end);
}

/* ------------------------------------------------------------------------
** One core, batched
*/

static uint64_t pow2_at_least(uint64_t x)
{
   uint64_t n = 1;

   while (n < x)
      n *= 2;
   return n;
}

void bw_batch_init(bw_core *c, uint32_t w, uint32_t stretch)
{
   uint64_t cap = pow2_at_least(2 * (uint64_t)w + stretch + BW_BATCH_LAG);
   int p;

   if (cap < 64)
      cap = 64;
   bw_core_init(c, w);
   c->ring_mask = (uint32_t)cap - 1;
   for (p = 0; p < BW_PATHS; p++) {
      c->ring[p] = cs_alloc(cap * sizeof(uint32_t));
      c->ring_nz[p] = cs_alloc(cap / 8);
      c->sums[p] = cs_alloc(64 * sizeof(uint64_t));
      c->sums_from[p] = ~(uint64_t)0;
   }
}

/* The 64 "not zero" bits of the ring from unit u on (bit k: unit u+k). */
static inline uint64_t ring_bits(const uint64_t *nz, uint32_t mask, uint64_t u)
{
   uint32_t i = ((uint32_t)u & mask) >> 6, off = (uint32_t)u & 63;
   uint64_t lo = nz[i] >> off;

   return off ? lo | nz[(i + 1) & (mask >> 6)] << (64 - off) : lo;
}

uint64_t bw_batch_next(const bw_core *c, int p, uint64_t u, uint64_t end)
{
   while (u < end) {
      uint64_t bits = ring_bits(c->ring_nz[p], c->ring_mask, u);
      if (bits) {
         uint64_t x = u + (uint64_t)__builtin_ctzll(bits);
         return x < end ? x : end;
      }
      u += 64;
   }
   return end;
}

/* Bits set in x (no popcnt instruction assumed). */
static inline unsigned bit_count(uint64_t x)
{
   x = x - ((x >> 1) & 0x5555555555555555ull);
   x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
   x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
   return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The "not zero" bits of the n <= 64 units from u on are cleared. */
static inline void ring_bits_clear(uint64_t *nz, uint32_t mask, uint64_t u, uint64_t n)
{
   uint32_t i = ((uint32_t)u & mask) >> 6, off = (uint32_t)u & 63;
   uint64_t m = n >= 64 ? ~0ull : (1ull << n) - 1;

   nz[i] &= ~(m << off);
   if (off && n > 64 - off)
      nz[(i + 1) & (mask >> 6)] &= ~(m >> (64 - off));
}

/* A word in which at least this many units enter or leave bytes is
   walked unit by unit (no bit search). */
#define DENSE_WORD 20
/* A period is guessed from this many units repeating. */
#define PERIOD_GUESS 16

/* Four units' bytes at once (SSE2 on amd64; any GCC target otherwise),
   at any 4-byte alignment. */
typedef uint32_t bw_v4 __attribute__((vector_size(16), aligned(4)));

/* Whether the n units at r[i..] hold the bytes of the n at r[j..]. */
static int same_slots(const uint32_t *r, uint32_t i, uint32_t j, uint64_t n)
{
   bw_v4 diff4 = { 0, 0, 0, 0 };
   uint32_t diff = 0;
   uint64_t k = 0;

   for (; k + 4 <= n; k += 4)
      diff4 |= *(const bw_v4 *)(r + i + k) ^ *(const bw_v4 *)(r + j + k);
   for (; k < n; k++)
      diff |= r[i + k] ^ r[j + k];
   return !(diff | diff4[0] | diff4[1] | diff4[2] | diff4[3]);
}

/* Whether the n units from x on have the bytes of the n from y on. */
static int same_units(const uint32_t *r, uint32_t mask, uint64_t x, uint64_t y, uint64_t n)
{
   uint32_t i = (uint32_t)x & mask, j = (uint32_t)y & mask, diff = 0, k;

   if (i + n <= mask + 1 && j + n <= mask + 1)
      return same_slots(r, i, j, n);
   for (k = 0; k < n; k++)
      diff |= r[(i + k) & mask] ^ r[(j + k) & mask];
   return !diff;
}

/* Whether the n units from x on (path p) are known to repeat the bytes
   of the P units before them. */
static int checked_periodic(const bw_core *c, int p, uint64_t x, uint64_t n, uint32_t P)
{
   return c->ok_p[p] == P && c->ok_from[p] <= x && x + n <= c->ok_to[p];
}

/* The n units from x on (path p) repeat the bytes of the P units before
   them: noted, joined to the units noted before if they follow them. */
static void note_periodic(bw_core *c, int p, uint64_t x, uint64_t n, uint32_t P)
{
   if (c->ok_p[p] != P || c->ok_to[p] != x) {
      c->ok_p[p] = P;
      c->ok_from[p] = x;
   }
   c->ok_to[p] = x + n;
}

/* ---- the run log (bandwidth.h) ---- */

void bw_batch_log_init(bw_core *c)
{
   /* (at most an entry per unit, and the units held span the ring) */
   uint64_t n = (uint64_t)c->ring_mask + 1;

   c->log_mask = (uint32_t)n - 1;
   c->log_unit = cs_alloc(n * sizeof(uint64_t));
   c->log_end = cs_alloc(n * sizeof(uint64_t));
   c->log_key = cs_alloc(n * sizeof(uint64_t));
   c->log_cur_key = ~(uint64_t)0;  /* (no entry yet: no key is all ones) */
}

/* The runs being added go to the arrays (an entry of their own the
   first time), if they are two runs or more: a lone run, or runs not
   known (key 0), are no entry. */
void bw__log_sync(bw_core *c)
{
   uint32_t last;

   if (!c->log_unit)
      return;                      /* (no log: bw_batch_log_init not called) */
   if (!c->log_cur_put) {
      if (!c->log_cur_key || c->log_cur_end - c->log_cur_start <= BW_LOG_N(c->log_cur_key))
         return;
      if (c->log_tail - c->log_head > c->log_mask)
         c->log_head++;            /* full: the oldest entry is dropped */
      c->log_unit[(uint32_t)c->log_tail & c->log_mask] = c->log_cur_start;
      c->log_tail++;
      c->log_cur_put = 1;
   }
   last = (uint32_t)(c->log_tail - 1) & c->log_mask;
   c->log_key[last] = c->log_cur_key;
   c->log_end[last] = c->log_cur_end;
}

/* The n slots from unit src on copied to those from dst on (apart by
   n or more), in the ring's contiguous parts. */
static void ring_copy(uint32_t *r, uint32_t mask, uint64_t src, uint64_t dst, uint64_t n)
{
   while (n) {
      uint32_t i = (uint32_t)src & mask, j = (uint32_t)dst & mask;
      uint64_t k = n;
      if (k > mask + 1 - i)
         k = mask + 1 - i;
      if (k > mask + 1 - j)
         k = mask + 1 - j;
      bw__copy(r + j, r + i, (uint32_t)k);
      src += k;
      dst += k;
      n -= k;
   }
}

/* The "not zero" bits of the n units from src on set for those from dst
   on (apart by n or more; dst's bits clear before, as for bw_batch_mark). */
static void ring_bits_copy(uint64_t *nz, uint32_t mask, uint64_t src, uint64_t dst, uint64_t n)
{
   for (; n; src += 64, dst += 64) {
      uint64_t k = n < 64 ? n : 64, b = ring_bits(nz, mask, src);
      if (k < 64)
         b &= (1ull << k) - 1;
      bw__mark_word(nz, mask, dst, b);
      n -= k;
   }
}

/* The runs bw_batch_log_repeat took (units log_fill .. log_cur_end-1)
   get the written paths' bytes and "not zero" bits of the run before
   them: copied from d units back, d a multiple of the run's length that
   doubles (the units copied repeat too), so a long loop costs a few
   long copies. */
void bw__log_fill(bw_core *c)
{
   uint64_t key = c->log_cur_key, from = c->log_fill, to = c->log_cur_end, d;
   int p;

   c->log_fill = to;
   c->log_owed = 0;
   if (!BW_LOG_N(key))
      return;                      /* (a repeat needs a key: none owed) */
   for (d = BW_LOG_N(key); from < to; d *= 2) {
      uint64_t n = to - from < d ? to - from : d;
      for (p = 0; p < BW_PATHS; p++) {
         if (!((c->written >> p) & 1))
            continue;
         ring_copy(c->ring[p], c->ring_mask, from - d, from, n);
         if (!BW_BATCH_DENSE(p))
            ring_bits_copy(c->ring_nz[p], c->ring_mask, from - d, from, n);
      }
      from += n;
   }
}

/* The last entry with its unit at most x (log_tail: none). */
static uint64_t log_find(const bw_core *c, uint64_t x)
{
   uint64_t lo = c->log_head, hi = c->log_tail;   /* (the answer is in [lo - 1, hi)) */

   if (lo == hi || c->log_unit[(uint32_t)lo & c->log_mask] > x)
      return c->log_tail;
   while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (c->log_unit[(uint32_t)mid & c->log_mask] <= x)
         lo = mid;
      else
         hi = mid;
   }
   return lo;
}

/* Whether the written paths' units x .. x+n-1 (before e, the walk's end:
   their bytes are final) repeat the bytes of the P units before them by
   the log: they and those are in one entry (runs of one key), and P is
   a multiple of the runs' length.  The units found so are kept
   (log_from .. log_to), for the other written paths and the next words;
   no further than e (bytes may still be added to the last runs: then
   their key is 0). */
static int log_periodic(bw_core *c, uint64_t x, uint64_t n, uint32_t P, uint64_t e)
{
   uint64_t i, key, end;
   uint32_t k;

   if (c->log_p == P && c->log_from <= x && x + n <= c->log_to)
      goto taken;
   if (!c->log_unit || (i = log_find(c, x)) == c->log_tail)
      return 0;
   k = (uint32_t)i & c->log_mask;
   key = c->log_key[k];
   end = c->log_end[k] < e ? c->log_end[k] : e;
   if (!key || P % BW_LOG_N(key) || c->log_unit[k] + P > x || x + n > end)
      return 0;
   c->log_p = P;
   c->log_from = c->log_unit[k] + P;
   c->log_to = end;
taken:
   c->log_taken++;
   return 1;
}

/* The entries wholly before unit `low` are not needed any more. */
static void log_trim(bw_core *c, uint64_t low)
{
   while (c->log_tail - c->log_head > 1
          && c->log_end[(uint32_t)c->log_head & c->log_mask] <= low)
      c->log_head++;
}

/* How many units from t on (before e, whole words of 64 or the rest)
   repeat the bytes P units before them, entering and leaving. The
   leaving units entered W units before: where they were checked then
   (with this P, and the ring still holds what it held), they are not
   compared again. */
static uint64_t periodic_units(bw_core *c, int p, const uint32_t *r, uint64_t t,
                               uint64_t e, uint32_t P)
{
   uint64_t m = 0;

   while (t + m < e) {
      uint64_t n = e - t - m < 64 ? e - t - m : 64, x = t + m;
      if (!(((c->written >> p) & 1) && log_periodic(c, x, n, P, e))
          && !same_units(r, c->ring_mask, x, x - P, n))
         break;
      note_periodic(c, p, x, n, P);
      if (!(x >= c->w && checked_periodic(c, p, x - c->w, n, P))
          && !same_units(r, c->ring_mask, x - c->w, x - c->w - P, n))
         break;
      m += n;
   }
   return m;
}

/* The m units from t on repeat the sums of the P units before t (those
   are valid in sums[], and s_(t-1) = s_(t-1-P)): counted, and the sums
   of the last units noted. Returns s_(t+m-1). */
static uint64_t repeat_sums(bw_hist *h, uint64_t *sums, uint64_t t, uint64_t m, uint32_t P)
{
   uint64_t vals[64], u;
   uint32_t i;

   for (i = 0; i < P; i++)
      vals[i] = sums[(t - P + i) & 63];
   for (i = 0; i < P && i < m; i++)
      bw_hist_add(h, vals[i], (m - i + P - 1) / P);
   for (u = t + m > 64 && t + m - 64 > t ? t + m - 64 : t; u < t + m; u++)
      sums[u & 63] = vals[(u - t) % P];
   return vals[(m - 1) % P];
}

/* The bytes of the m units from t on, which repeat the P before t. */
static uint64_t periodic_bytes(const uint32_t *r, uint32_t mask, uint64_t t, uint64_t m,
                               uint32_t P)
{
   uint64_t sum = 0;
   uint32_t i;

   for (i = 0; i < P && i < m; i++)
      sum += (uint64_t)r[(uint32_t)(t - P + i) & mask] * ((m - i + P - 1) / P);
   return sum;
}

/* A period P < 64 the PERIOD_GUESS units up to x repeat, or 0; only
   units from `low` on are looked at (the slots before are cleared). */
static uint32_t guess_period(const uint32_t *r, uint32_t mask, uint64_t x, uint64_t low)
{
   uint64_t first = x + 1 - PERIOD_GUESS;
   uint32_t P;

   /* (vector compares: a loop breaking at the first unequal unit
      mispredicts where it breaks) */
   for (P = 1; P < 64; P++) {
      if (x + 1 < low + PERIOD_GUESS + P)
         return 0;
      if (same_units(r, mask, first, first - P, PERIOD_GUESS))
         return P;
   }
   return 0;
}

/* After a walked word ending at unit x: a new period, now and then, at
   longer and longer intervals (up to 1024 words) until a run repeats
   (batch_path starts them again at once).  (Code without loops finds
   periods too, e.g. in a run of equal units, that hardly ever count a
   run: a period found is no reason to guess again soon.) */
static void next_guess(bw_core *c, int p, const uint32_t *r, uint64_t x, uint64_t low)
{
   uint32_t P;

   if (c->guess_in[p]) {
      c->guess_in[p]--;
      return;
   }
   P = guess_period(r, c->ring_mask, x, low);
   c->period[p] = P;
   c->guess_wait[p] = c->guess_wait[p] ? (c->guess_wait[p] * 2 > 1024 ? 1024 : c->guess_wait[p] * 2) : 1;
   c->guess_in[p] = c->guess_wait[p];
}

/* Slots of units from .. to-1 cleared, 4 at a time (contiguous parts of
   the ring). */
#define CLEAR_WHOLE 8u   /* bits of a word cleared as 64 slots */
static void clear_slots(uint32_t *r, uint32_t mask, uint64_t from, uint64_t to)
{
   const bw_v4 zero = { 0, 0, 0, 0 };

   while (from < to) {
      uint32_t i = (uint32_t)from & mask, k = 0;
      uint64_t n = to - from;
      if (n > mask + 1 - i)
         n = mask + 1 - i;
      for (; k + 4 <= n; k += 4)
         *(bw_v4 *)(r + i + k) = zero;
      for (; k < n; k++)
         r[i + k] = 0;
      from += n;
   }
}

/* The slots of the n units from u that bits marks are zeroed: all n at
   once when many are marked. */
static void clear_marked(uint32_t *r, uint32_t mask, uint64_t u, uint64_t n, uint64_t bits)
{
   if (bit_count(bits) >= CLEAR_WHOLE) {
      clear_slots(r, mask, u, u + n);
      return;
   }
   for (; bits; bits &= bits - 1)
      r[(uint32_t)(u + (uint64_t)__builtin_ctzll(bits)) & mask] = 0;
}

/* The slots of units from .. to-1 are cleared (they left the window).  A
   sparse path's word with many units of bytes (a loop's flops) is
   cleared whole: one slot per bit costs a dependent loop step each. */
static void clear_units(bw_core *c, int p, uint64_t from, uint64_t to)
{
   uint32_t *r = c->ring[p], mask = c->ring_mask;
   uint64_t *nz = c->ring_nz[p], u;
   int written = (c->written >> p) & 1;   /* (its slots are written whole) */

   if (BW_BATCH_DENSE(p)) {
      if (!written)
         clear_slots(r, mask, from, to);
      return;
   }
   for (u = from; u < to; u += 64) {
      uint64_t n = to - u < 64 ? to - u : 64, bits = ring_bits(nz, mask, u);
      if (n < 64)
         bits &= (1ull << n) - 1;
      if (!written)
         clear_marked(r, mask, u, n, bits);
      ring_bits_clear(nz, mask, u, n);
   }
}

/* The window sum s, held from unit *since to x, is counted for those
   units (the histogram's open run extended inline: the common case) and
   becomes s + in - out at x, where in and out are the bytes of the unit
   entering and of the one leaving the window. */
static inline uint64_t sum_changes(bw_hist *h, uint64_t s, uint64_t *since,
                                   uint64_t x, uint32_t in, uint32_t out)
{
   if (x > *since)
      hist_count(h, s, x - *since);
   *since = x;
   return s + in - out;
}

/* Path p over units a .. e-1: the window sum changes only in a unit
   whose bytes differ from those of the unit leaving (W before).  A word
   of 64 units with few such is searched by its bits, the units between
   two changes counted at once; a busy word (or a BW_BATCH_DENSE path)
   is a run of repeating units (bandwidth.h), or walked unit by unit. */
static void batch_path(bw_core *c, int p, uint64_t a, uint64_t e)
{
   bw_window *win = &c->win[p];
   bw_hist *h = &c->hist[p];
   uint32_t *r = c->ring[p], mask = c->ring_mask, w = c->w;
   uint64_t *nz = c->ring_nz[p], *sums = c->sums[p];
   uint64_t s = win->sum, since = a, t, total = 0;
   uint64_t low = a > w + BW_BATCH_LAG ? a - w - BW_BATCH_LAG : 0;
   int dense = BW_BATCH_DENSE(p);

   for (t = a; t < e;) {
      uint64_t n = e - t < 64 ? e - t : 64, bits = 0, k, m;
      uint32_t P = c->period[p];
      if (!dense) {
         bits = ring_bits(nz, mask, t) | ring_bits(nz, mask, t - w);
         if (n < 64)
            bits &= (1ull << n) - 1;
      }
      if (!dense && bit_count(bits) < DENSE_WORD) {
         for (; bits; bits &= bits - 1) {
            uint64_t x = t + (uint64_t)__builtin_ctzll(bits);
            uint32_t in = r[(uint32_t)x & mask], out = r[(uint32_t)(x - w) & mask];
            total += in;
            if (in != out)
               s = sum_changes(h, s, &since, x, in, out);
         }
         c->sums_from[p] = ~(uint64_t)0;     /* (not noted) */
         t += n;
         continue;
      }
      if (t > since)
         bw_hist_add(h, s, t - since);
      if (P && t > P && c->sums_from[p] <= t - 1 - P && sums[(t - 1 - P) & 63] == s
          && (m = periodic_units(c, p, r, t, e, P)) > 0) {
         s = repeat_sums(h, sums, t, m, P);
         c->guess_wait[p] = c->guess_in[p] = 0;
         total += periodic_bytes(r, mask, t, m, P);
         t += m;
         since = t;
         continue;
      }
      {
         /* (the counts in locals: the stores could change h's fields) */
         uint64_t *dense_counts = h->dense;
         uint32_t dense_n = h->dense_n;
         for (k = 0; k < n; k++) {
            uint32_t in = r[(uint32_t)(t + k) & mask], out = r[(uint32_t)(t + k - w) & mask];
            total += in;
            s = s + in - out;
            sums[(t + k) & 63] = s;
            if (s < dense_n) {
               dense_counts[s]++;
               continue;
            }
            bw_hist_add(h, s, 1);
            dense_counts = h->dense;
            dense_n = h->dense_n;
         }
      }
      if (c->sums_from[p] > t)
         c->sums_from[p] = t;
      t += n;
      since = t;
      next_guess(c, p, r, t - 1, low);
   }
   win->sum = s;
   win->since = since;
   bw__window_change(h, win, e);
   c->total[p] += total;
   /* the units that left, BW_BATCH_LAG late */
   if (e > w + BW_BATCH_LAG)
      clear_units(c, p, low, e - w - BW_BATCH_LAG);
}

void bw_batch_ordered(bw_core *c, uint32_t paths)
{
   uint64_t n = (uint64_t)c->ring_mask + 1;
   int p;

   c->ordered = paths;
   for (p = 0; p < BW_PATHS; p++)
      if ((paths >> p) & 1) {
         c->ev[p] = cs_alloc(n * sizeof(bw_entry));
         /* (its ring is not used) */
         cs_free(c->ring[p]);
         cs_free(c->ring_nz[p]);
         c->ring[p] = 0;
         c->ring_nz[p] = 0;
      }
}

void bw_batch_ordered_shift(bw_core *c, uint32_t shift)
{
   int p;

   for (p = 0; p < BW_PATHS; p++)
      if ((c->ordered >> p) & 1)
         c->hist[p].shift = shift;
}

/* Ordered path p over units a .. e-1: its entries entering (their unit)
   and leaving (W units after it) merged in unit order; the window sum
   changes where a unit's entering bytes differ from its leaving ones
   (as batch_path's search by bits, with no bits). */
static void batch_events(bw_core *c, int p, uint64_t a, uint64_t e)
{
   bw_window *win = &c->win[p];
   bw_hist *h = &c->hist[p];
   const bw_entry *ev = c->ev[p];
   uint32_t mask = c->ring_mask, w = c->w;
   uint64_t s = win->sum, since = a, total = 0;
   uint64_t in = c->ev_in[p], out = c->ev_head[p], tail = c->ev_tail[p];
   /* (the entries held: from a - W on, so their units from `low` on) */
   uint64_t low = a > w ? a - w : 0;
   const uint64_t none = ~(uint64_t)0;

   /* (no branch on which side comes next: the next entering and the
      next leaving entry are loaded every step, a slot past the tail
      too, and taken by compares) */
   for (;;) {
      bw_entry ei = ev[(uint32_t)in & mask], eo = ev[(uint32_t)out & mask];
      uint64_t xi = in < tail ? bw__unit_from(low, ei.unit) : none;
      uint64_t xo = out < in ? bw__unit_from(low, eo.unit) + w : none;
      uint64_t x = xi < xo ? xi : xo;
      uint32_t vin, vout;
      if (x >= e)
         break;
      vin = xi == x ? ei.bytes : 0;
      vout = xo == x ? eo.bytes : 0;
      in += xi == x;
      out += xo == x;
      total += vin;
      if (vin != vout)
         s = sum_changes(h, s, &since, x, vin, vout);
   }
   c->ev_in[p] = in;
   c->ev_head[p] = out;
   win->sum = s;
   win->since = since;
   bw__window_change(h, win, e);
   c->total[p] += total;
}

static void batch_any(bw_core *c, int p, uint64_t a, uint64_t e)
{
   if ((c->ordered >> p) & 1)
      batch_events(c, p, a, e);
   else
      batch_path(c, p, a, e);
}

void bw_batch_flush(bw_core *c, uint64_t end)
{
   int p;

   if (end <= c->units)
      return;
   bw_batch_log_settle(c);
   bw__log_sync(c);
   for (p = 0; p < BW_PATHS; p++)
      batch_any(c, p, c->units, end);
   c->units = end;
   c->dirty = 0;
   /* (the walk looks back W units and a period, P < 64, from them) */
   if (c->log_unit && end > c->w + 2 * BW_BATCH_LAG)
      log_trim(c, end - c->w - 2 * BW_BATCH_LAG);
}

void bw_batch_finish(bw_core *c, uint64_t units)
{
   uint64_t end = units + c->w;
   int p;

   if (c->finished)
      return;
   bw_batch_flush(c, units);
   bw__dominance_change(c, -2, 0, c->units);   /* as bw_finish */
   /* the drain: nothing was added after `units` (a written path's slots
      there may hold what units a ring earlier had) */
   for (p = 0; p < BW_PATHS; p++) {
      if ((c->written >> p) & 1)
         clear_slots(c->ring[p], c->ring_mask, units, end);
      batch_any(c, p, units, end);
   }
   c->finished = 1;
}

/* ------------------------------------------------------------------------
** Dirty D1 lines
*/

void bw_dirty_init(bw_dirty *d, uint32_t sets, uint32_t ways)
{
   uint64_t n = pow2_at_least(sets ? sets : 1), i;

   d->ways = ways ? ways : 1;
   d->row_mask = (uint32_t)n - 1;
   d->rows = cs_alloc(n * d->ways * sizeof(uint64_t));
   for (i = 0; i < n * d->ways; i++)
      d->rows[i] = BW_MAP_NONE;
   d->lines.keys = d->lines.vals = 0;
   d->lines.cap = d->lines.used = 0;
   d->last = BW_MAP_NONE;
}

void bw_dirty_free(bw_dirty *d)
{
   cs_free(d->rows);
   d->rows = 0;
   bw_map_free(&d->lines);
}

static uint64_t *dirty_row(const bw_dirty *d, uint64_t line)
{
   return d->rows + (uint64_t)((uint32_t)line & d->row_mask) * d->ways;
}

void bw_dirty__mark(bw_dirty *d, uint64_t line)
{
   uint64_t *row = dirty_row(d, line), *free_place = 0;
   uint32_t k;

   d->last = line;
   for (k = 0; k < d->ways; k++) {
      if (row[k] == line)
         return;
      if (row[k] == BW_MAP_NONE && !free_place)
         free_place = &row[k];
   }
   /* (a line in the map stays there: never in both) */
   if (d->lines.used && bw_map_find(&d->lines, line))
      return;
   if (free_place)
      *free_place = line;
   else
      bw_map_slot(&d->lines, line);
}

int bw_dirty_take(bw_dirty *d, uint64_t line)
{
   uint64_t *row = dirty_row(d, line);
   uint32_t k;

   for (k = 0; k < d->ways; k++)
      if (row[k] == line)
         break;
   if (k < d->ways)
      row[k] = BW_MAP_NONE;
   else if (!d->lines.used || !bw_map_del(&d->lines, line))
      return 0;
   if (d->last == line)
      d->last = BW_MAP_NONE;
   return 1;
}

void bw_dirty_clear(bw_dirty *d)
{
   uint64_t i, n = ((uint64_t)d->row_mask + 1) * d->ways;

   for (i = 0; i < n; i++)
      d->rows[i] = BW_MAP_NONE;
   bw_map_clear(&d->lines);
   d->last = BW_MAP_NONE;
}

/* ------------------------------------------------------------------------
** All cores
*/

/* ---- the overflow table: units holding BW_OVERFLOW granules or more ---- */

uint64_t bw_series__overflow(const bw_series *s, uint64_t u)
{
   const uint64_t *n = bw_map_find(&s->overflow, u);

   return n ? *n : 0;
}

/* ---- chunks ------------------------------------------------------------ */

void bw_series_init(bw_series *s, uint32_t w, uint32_t max_ahead, uint32_t granule)
{
   char *p = (char *)s;
   unsigned long i;

   for (i = 0; i < sizeof *s; i++)
      p[i] = 0;
   s->w = w;
   s->granule = granule ? granule : 1;
   s->granule_shift = 32;
   for (i = 0; i < 32; i++)
      if (s->granule == 1u << i)
         s->granule_shift = (uint32_t)i;
   /* (its sums are multiples of the granule: counted in granules) */
   if (s->granule_shift < 32)
      s->hist.shift = s->granule_shift;
   /* (a power of two: the bound of the ring this replaces) */
   s->max_span = pow2_at_least((uint64_t)max_ahead + w);
   s->ntab = 4;
   s->tab = cs_alloc(s->ntab * sizeof(bw_chunk *));
}

void bw_series_free(bw_series *s)
{
   uint32_t i;

   for (i = 0; i < s->ntab; i++)
      if (s->tab[i])
         cs_free(s->tab[i]);
   while (s->spare) {
      bw_chunk *c = s->spare;
      s->spare = c->next;
      cs_free(c);
   }
   cs_free(s->tab);
   s->tab = 0;
   bw_map_free(&s->overflow);
   bw_hist_free(&s->hist);
}

/* The first unit held: the window before `final`. */
static uint64_t series_low(const bw_series *s)
{
   return s->final > s->w ? s->final - s->w : 0;
}

/* The chunk holding unit u, or NULL (all zero). */
static bw_chunk *chunk_of(const bw_series *s, uint64_t u)
{
   uint64_t k = u / BW_CHUNK;

   if (k < s->low_k || k - s->low_k >= s->ntab)
      return 0;
   return s->tab[k & (s->ntab - 1)];
}

/* The table holds chunks low_k .. k. */
static void table_grow(bw_series *s, uint64_t k)
{
   uint32_t n = s->ntab, i;
   bw_chunk **tab;

   while (k - s->low_k >= n)
      n *= 2;
   tab = cs_alloc(n * sizeof(bw_chunk *));
   for (i = 0; i < s->ntab; i++) {
      uint64_t kk = s->low_k + i;
      tab[kk & (n - 1)] = s->tab[kk & (s->ntab - 1)];
   }
   cs_free(s->tab);
   s->tab = tab;
   s->ntab = n;
}

/* The chunk of unit u, made if missing. */
static bw_chunk *chunk_made(bw_series *s, uint64_t u)
{
   uint64_t k = u / BW_CHUNK;
   bw_chunk **slot;

   if (k - s->low_k >= s->ntab)
      table_grow(s, k);
   slot = &s->tab[k & (s->ntab - 1)];
   if (!*slot) {
      if (s->spare) {
         *slot = s->spare;
         s->spare = s->spare->next;
         (*slot)->next = 0;
      } else
         *slot = cs_alloc(sizeof(bw_chunk));
   }
   return *slot;
}

/* The chunks before the one holding series_low are out of the window
   (all zero: every nonzero unit was cleared when it left): spare. */
static void release_chunks(bw_series *s)
{
   uint64_t low_k = series_low(s) / BW_CHUNK, k;

   for (k = s->low_k; k < low_k && k - s->low_k < s->ntab; k++) {
      bw_chunk **slot = &s->tab[k & (s->ntab - 1)];
      if (*slot) {
         (*slot)->next = s->spare;
         s->spare = *slot;
         *slot = 0;
      }
   }
   if (low_k > s->low_k)
      s->low_k = low_k;
}

void bw_series_add(bw_series *s, uint64_t u, uint32_t v)
{
   bw_chunk *c;
   uint32_t i = (uint32_t)(u % BW_CHUNK), cur;
   uint64_t n;

   if (u - series_low(s) >= s->max_span)
      cs_fail("bandwidth: all-cores unit beyond the ring");
   if (!v)
      return;
   /* (a line size: a shift, where a division took tens of cycles) */
   if (s->granule_shift < 32)
      n = v >> s->granule_shift;
   else
      n = v / s->granule;
   if (n * s->granule != v)
      cs_fail("bandwidth: all-cores value not a multiple of the line size");
   c = chunk_made(s, u);
   cur = c->n[i];
   if (cur == BW_OVERFLOW)
      bw_map_add(&s->overflow, u, n);
   else if (cur + n >= BW_OVERFLOW) {
      bw_map_set(&s->overflow, u, cur + n);
      c->n[i] = BW_OVERFLOW;
   } else
      c->n[i] = (uint8_t)(cur + n);
   c->nz[i / 64] |= 1ull << (i % 64);
}

void bw_series_resume(bw_series *s, uint64_t final, uint64_t sum, uint64_t total)
{
   s->final = final;
   s->sum = sum;
   s->total = total;
   s->low_k = series_low(s) / BW_CHUNK;
}

/* Unit u is zero again. */
/* Unit u of its chunk c is zero again. */
static inline void chunk_clear(bw_series *s, bw_chunk *c, uint64_t u)
{
   uint32_t i = (uint32_t)(u % BW_CHUNK);

   if (c->n[i] == BW_OVERFLOW)
      bw_map_del(&s->overflow, u);
   c->n[i] = 0;
   c->nz[i / 64] &= ~(1ull << (i % 64));
}

static void series_clear(bw_series *s, uint64_t u)
{
   bw_chunk *c = chunk_of(s, u);

   if (c)
      chunk_clear(s, c, u);
}

uint64_t bw_series_window(const bw_series *s, uint64_t u)
{
   uint64_t x = u + 1 > s->w ? u + 1 - s->w : 0, sum = 0;

   for (; x <= u; x++)
      sum += bw_series_at(s, x);
   return sum;
}

/* Unit u becomes final: it enters the window, unit u - W leaves it (and
   is cleared). */
static void series_step(bw_series *s, uint64_t u, int count)
{
   uint64_t v = bw_series_at(s, u);

   if (u >= s->w) {
      /* (unit o leaves and is cleared: its chunk looked up once) */
      uint64_t o = u - s->w;
      bw_chunk *c = chunk_of(s, o);
      uint32_t i = (uint32_t)(o % BW_CHUNK), n = c ? c->n[i] : 0;
      if (n) {
         if (n == BW_OVERFLOW)
            s->sum -= bw_series__overflow(s, o) * s->granule;
         else
            s->sum -= (uint64_t)n * s->granule;
         chunk_clear(s, c, o);
      }
   }
   s->sum += v;
   if (count)
      s->total += v;
   hist_count(&s->hist, s->sum, 1);
}

/* The not-zero bits of the 64 units from x on (x a multiple of 64). */
static uint64_t nz_word(const bw_series *s, uint64_t x)
{
   const bw_chunk *c = chunk_of(s, x);

   return c ? c->nz[(x % BW_CHUNK) / 64] : 0;
}

/* The 64 bits of nz from unit u on (any alignment). */
static uint64_t nz_bits(const bw_series *s, uint64_t u)
{
   unsigned off = (unsigned)(u & 63);
   uint64_t lo = nz_word(s, u - off) >> off;

   return off ? lo | nz_word(s, u - off + 64) << (64 - off) : lo;
}

/* The units from u on that enter or leave a nonzero value, as bits
   (bit k: unit u + k), for the n <= 64 units u .. u+n-1 (u >= W). */
static uint64_t change_bits(const bw_series *s, uint64_t u, uint64_t n)
{
   uint64_t bits = nz_bits(s, u) | nz_bits(s, u - s->w);

   return n >= 64 ? bits : bits & ((1ull << n) - 1);
}

/* A chunk looked up once for the units of one chunk (no chunk is made
   or released while units are finalized). */
typedef struct {
   uint64_t  k;
   bw_chunk *c;
} chunk_hint;

static inline bw_chunk *chunk_hinted(const bw_series *s, chunk_hint *h, uint64_t u)
{
   if (u / BW_CHUNK != h->k) {
      h->k = u / BW_CHUNK;
      h->c = chunk_of(s, u);
   }
   return h->c;
}

/* The units of the change bits from u on (u >= W), each as series_step
   (unit x enters, x - W leaves and is cleared), the units between them
   counted at once: the sums in locals, the two chunks looked up once per
   chunk; a unit in the overflow table takes series_step. */
static void final_bits(bw_series *s, uint64_t u, uint64_t bits, chunk_hint *hin,
                       chunk_hint *hout)
{
   uint64_t sum = s->sum, total = s->total, final = s->final, g = s->granule;

   for (; bits; bits &= bits - 1) {
      uint64_t x = u + (uint64_t)__builtin_ctzll(bits), o = x - s->w;
      bw_chunk *ci = chunk_hinted(s, hin, x), *co = chunk_hinted(s, hout, o);
      uint32_t ii = (uint32_t)(x % BW_CHUNK), io = (uint32_t)(o % BW_CHUNK);
      uint32_t vin = ci ? ci->n[ii] : 0, vout = co ? co->n[io] : 0;
      if (x > final)
         hist_count(&s->hist, sum, x - final);
      if (vin == BW_OVERFLOW || vout == BW_OVERFLOW) {
         s->sum = sum;
         s->total = total;
         series_step(s, x, 1);
         sum = s->sum;
         total = s->total;
      } else {
         if (vout)
            chunk_clear(s, co, o);
         sum = sum - vout * g + vin * g;
         total += vin * g;
         hist_count(&s->hist, sum, 1);
      }
      final = x + 1;
   }
   s->sum = sum;
   s->total = total;
   s->final = final;
}

/* The window sum changes only in a unit that enters or leaves a nonzero
   value: the units between two such are counted at once (a unit that
   leaves zero has nothing to clear). */
void bw_series_final(bw_series *s, uint64_t upto)
{
   chunk_hint hin = { ~(uint64_t)0, 0 }, hout = { ~(uint64_t)0, 0 };

   while (s->final < upto) {
      uint64_t u = s->final, n = upto - u > 64 ? 64 : upto - u, bits;
      if (u < s->w) {            /* nothing leaves yet */
         series_step(s, u, 1);
         s->final = u + 1;
         continue;
      }
      /* (a step clears only the bit of the unit leaving at it: the
         other bits of the word stay right) */
      bits = change_bits(s, u, n);
      if (bits)
         final_bits(s, u, bits, &hin, &hout);
      if (u + n > s->final)
         hist_count(&s->hist, s->sum, u + n - s->final);
      s->final = u + n;
   }
   release_chunks(s);
}

void bw_series_finish(bw_series *s, uint64_t units)
{
   uint64_t u;

   bw_series_final(s, units);
   /* the drain: units after the last, with nothing added */
   for (u = s->final; u < s->final + s->w; u++) {
      series_clear(s, u);
      series_step(s, u, 0);
   }
}
