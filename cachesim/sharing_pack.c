/*
** sharing_pack.c -- one thread's counts on a cache line as a packed set
** (sharing_pack.h states the form).
*/
#include "sharing_pack.h"
#include "cachesim.h"          /* cs_alloc, cs_free, cs_fail */

#define CHUNK_BITS 18           /* 256 KiB chunks */
#define CHUNK (1u << CHUNK_BITS)
typedef char chunk_is_sp_chunk_bytes[CHUNK == SP_CHUNK_BYTES ? 1 : -1];
#define GRAIN_BITS 2            /* records are multiples of 4 bytes */
#define OFF_BITS (CHUNK_BITS - GRAIN_BITS)
#define MAX_CHUNKS (1u << (32 - OFF_BITS))
#define WIDE 0x80               /* in site_cap: counts of 8 bits */
#define NARROW_MAX 15           /* the largest count of 4 bits */

typedef struct {
   uint32_t owner;
   uint16_t tid;
   uint16_t n, cap;             /* counts; a freed block: n is its size */
   uint8_t  nsites;
   uint8_t  site_cap;           /* | WIDE; 0: a freed block */
} head;

/* ---- the store's chunks ------------------------------------------------------ */

static head *at(const sp_store *st, uint32_t ref)
{
   return (head *)(st->chunk[ref >> OFF_BITS]
                   + ((ref & ((1u << OFF_BITS) - 1)) << GRAIN_BITS));
}

static uint32_t ref_of(uint32_t chunk, uint32_t off)
{
   return chunk << OFF_BITS | off >> GRAIN_BITS;
}

void sp_init(sp_store *st, uint32_t line_size, sp_moved moved, void *ctx)
{
   *st = (sp_store){ 0 };
   st->words = line_size > 64 ? line_size / 64 : 1;
   st->max_count = SP_MAX_COUNT;
   st->max_sites = SP_MAX_SITES;
   st->moved = moved;
   st->moved_ctx = ctx;
}

static void new_chunk(sp_store *st)
{
   uint32_t i;

   if (st->nchunks == MAX_CHUNKS)
      cs_fail("sharing: packed records past 16 GiB");
   if (st->nchunks == st->chunk_cap) {
      char **old = st->chunk;
      uint32_t *old_used = st->chunk_used;
      st->chunk_cap = st->chunk_cap ? st->chunk_cap * 2 : 8;
      st->chunk = cs_alloc(sizeof(char *) * st->chunk_cap);
      st->chunk_used = cs_alloc(sizeof(uint32_t) * st->chunk_cap);
      for (i = 0; i < st->nchunks; i++) {
         st->chunk[i] = old[i];
         st->chunk_used[i] = old_used[i];
      }
      cs_free(old);
      cs_free(old_used);
   }
   st->chunk_used[st->nchunks] = 0;
   st->chunk[st->nchunks++] = cs_alloc(CHUNK);
   st->bytes += CHUNK;
   if (st->bytes > st->peak_bytes)
      st->peak_bytes = st->bytes;
}

/* A block of bytes (a multiple of 4) at the end of the last chunk. */
static uint32_t take(sp_store *st, uint32_t bytes)
{
   uint32_t last;

   if (!st->nchunks || st->chunk_used[st->nchunks - 1] + bytes > CHUNK)
      new_chunk(st);
   last = st->nchunks - 1;
   st->chunk_used[last] += bytes;
   st->used_bytes += bytes;
   if (st->used_bytes > st->peak_used)
      st->peak_used = st->used_bytes;
   return ref_of(last, st->chunk_used[last] - bytes);
}

static void free_chunks(sp_store *st, uint32_t from)
{
   uint32_t i;

   for (i = from; i < st->nchunks; i++)
      cs_free(st->chunk[i]);
   st->bytes -= (uint64_t)(st->nchunks - from) * CHUNK;
   st->nchunks = from;
}

void sp_reset(sp_store *st)
{
   free_chunks(st, 0);
   st->left = 0;
   st->live = 0;
   st->used_bytes = 0;
}

void sp_fini(sp_store *st)
{
   sp_reset(st);
   cs_free(st->chunk);
   cs_free(st->chunk_used);
}

/* ---- a record's layout: head, sites (each with its offset set), counts ------- */

static uint32_t site_stride(const sp_store *st)
{
   return (uint32_t)sizeof(sp_site) + 8 * st->words;
}

static uint32_t sites_cap(const head *h) { return h->site_cap & ~WIDE; }

static int is_wide(const head *h) { return (h->site_cap & WIDE) != 0; }

static sp_site *site_at(const sp_store *st, head *h, uint32_t i)
{
   return (sp_site *)((char *)(h + 1) + i * site_stride(st));
}

/* Word w of site s's offset set (4-byte aligned: copied, not loaded). */
static uint64_t offsets_word(const sp_site *s, uint32_t w)
{
   uint64_t x;

   __builtin_memcpy(&x, (const char *)(s + 1) + 8 * w, sizeof x);
   return x;
}

static void set_offsets_word(sp_site *s, uint32_t w, uint64_t x)
{
   __builtin_memcpy((char *)(s + 1) + 8 * w, &x, sizeof x);
}

static uint8_t *counts_of(const sp_store *st, head *h)
{
   return (uint8_t *)(h + 1) + sites_cap(h) * site_stride(st);
}

static uint32_t count_at(const sp_store *st, head *h, uint32_t k)
{
   const uint8_t *c = counts_of(st, h);

   return is_wide(h) ? c[k] : (uint32_t)(c[k / 2] >> (k % 2 * 4)) & NARROW_MAX;
}

static void set_count(const sp_store *st, head *h, uint32_t k, uint32_t v)
{
   uint8_t *c = counts_of(st, h);

   if (is_wide(h))
      c[k] = (uint8_t)v;
   else
      c[k / 2] = (uint8_t)((c[k / 2] & ~(NARROW_MAX << (k % 2 * 4))) | v << (k % 2 * 4));
}

static uint32_t rec_bytes(const sp_store *st, uint32_t site_cap, uint32_t cap, int wide)
{
   uint32_t count_bytes = wide ? cap : (cap + 1) / 2;

   return ((uint32_t)sizeof(head) + site_cap * site_stride(st) + count_bytes + 3) & ~3u;
}

static uint32_t block_bytes(const sp_store *st, const head *h)
{
   return h->site_cap ? rec_bytes(st, sites_cap(h), h->cap, is_wide(h)) : h->n;
}

/* The block is left (freed or moved): reclaimed by the next compaction. */
static void leave(sp_store *st, uint32_t ref)
{
   head *h = at(st, ref);
   uint32_t bytes = block_bytes(st, h);

   h->site_cap = 0;
   h->n = (uint16_t)bytes;
   st->left += bytes;
   st->used_bytes -= bytes;
}

static uint32_t count_bytes(uint32_t n, int wide)
{
   return wide ? n : (n + 1) / 2;
}

/* The n counts of a record whose counts start at from (8 bits each if
   from_wide, else 4) written at into (likewise by into_wide), last count
   first: right also where the two overlap with into at or past from and
   counts only widen, as in a record grown in place. */
static void move_counts(uint8_t *into, int into_wide, const uint8_t *from,
                        int from_wide, uint32_t n)
{
   uint32_t k, v;

   if (from_wide == into_wide) {
      for (k = count_bytes(n, from_wide); k-- > 0;)
         into[k] = from[k];
      return;
   }
   for (k = n; k-- > 0;) {                     /* 4 bits -> 8 bits */
      v = (uint32_t)(from[k / 2] >> (k % 2 * 4)) & NARROW_MAX;
      into[k] = (uint8_t)v;
   }
}

/* The bytes after the block at ref up to its chunk's end, if it is the
   last block of its chunk; 0 if it is not. */
static uint32_t room_after(const sp_store *st, uint32_t ref, uint32_t bytes)
{
   uint32_t c = ref >> OFF_BITS;
   uint32_t end = ((ref & ((1u << OFF_BITS) - 1)) << GRAIN_BITS) + bytes;

   return end == st->chunk_used[c] ? CHUNK - end : 0;
}

/* The record, the last of its chunk, given new_bytes where it is (the
   counts move up past the sites' new room, and widen if wide). */
static void grow_in_place(sp_store *st, head *h, uint32_t ref, uint32_t new_bytes,
                          uint32_t site_cap, uint32_t cap, int wide)
{
   uint32_t more = new_bytes - block_bytes(st, h);
   const uint8_t *from = counts_of(st, h);
   int was_wide = is_wide(h);

   st->chunk_used[ref >> OFF_BITS] += more;
   st->used_bytes += more;
   if (st->used_bytes > st->peak_used)
      st->peak_used = st->used_bytes;
   h->site_cap = (uint8_t)(site_cap | (wide ? WIDE : 0));
   h->cap = (uint16_t)cap;
   move_counts(counts_of(st, h), wide, from, was_wide, h->n);
   st->grows_in_place++;
}

/* A copy of the record at the end, of new_bytes; the old one is left. */
static void grow_by_copy(sp_store *st, uint32_t *ref, uint32_t new_bytes,
                         uint32_t site_cap, uint32_t cap, int wide)
{
   uint32_t to = take(st, new_bytes), i;
   head *h = at(st, *ref), *g = at(st, to);      /* (after take: chunks moved) */

   *g = *h;
   g->site_cap = (uint8_t)(site_cap | (wide ? WIDE : 0));
   g->cap = (uint16_t)cap;
   for (i = 0; i < h->nsites * site_stride(st); i++)
      ((char *)(g + 1))[i] = ((char *)(h + 1))[i];
   move_counts(counts_of(st, g), is_wide(g), counts_of(st, h), is_wide(h), h->n);
   leave(st, *ref);
   *ref = to;
}

/* The record with room for site_cap sites and cap counts of 8 bits if
   wide, 4 if not: grown where it is if it is the last of its chunk and
   the chunk has room (no copy, no space left for the compaction: 88% of
   xz's growths, a record growing several times in a row as a history is
   replayed into it or a burst of accesses brings new keys), else copied. */
static void resize(sp_store *st, uint32_t *ref, uint32_t site_cap, uint32_t cap, int wide)
{
   head *h = at(st, *ref);
   uint32_t old_bytes = block_bytes(st, h), new_bytes = rec_bytes(st, site_cap, cap, wide);

   st->grows++;
   if (new_bytes - old_bytes <= room_after(st, *ref, old_bytes))
      grow_in_place(st, h, *ref, new_bytes, site_cap, cap, wide);
   else
      grow_by_copy(st, ref, new_bytes, site_cap, cap, wide);
}

/* ---- compaction ---------------------------------------------------------------- */

static void move_words(uint32_t *to, const uint32_t *from, uint32_t bytes)
{
   uint32_t i;

   for (i = 0; i < bytes / 4; i++)             /* to <= from: forwards */
      to[i] = from[i];
}

/* Every live record slid down to the chunks' start, in order; their
   owners told. */
static void compact(sp_store *st)
{
   uint32_t c, off, bytes, dc = 0, doff = 0;
   head *h;

   for (c = 0; c < st->nchunks; c++)
      for (off = 0; off < st->chunk_used[c]; off += bytes) {
         h = (head *)(st->chunk[c] + off);
         bytes = block_bytes(st, h);
         if (!h->site_cap)
            continue;
         if (doff + bytes > CHUNK) {
            st->chunk_used[dc++] = doff;
            doff = 0;
         }
         if (dc != c || doff != off) {
            move_words((uint32_t *)(st->chunk[dc] + doff), (const uint32_t *)h, bytes);
            st->compact_moved += bytes;
            st->moved(st->moved_ctx, ((head *)(st->chunk[dc] + doff))->owner,
                      ref_of(dc, doff));
         }
         doff += bytes;
      }
   if (st->nchunks)
      st->chunk_used[dc] = doff;
   free_chunks(st, st->nchunks ? dc + 1 : 0);
   st->left = 0;
   st->compactions++;
}

/* ---- records ----------------------------------------------------------------- */

/* Space left by freed and moved records is reclaimed once it is a fifth
   of the chunks (sp_tidy).  Records grow far more often than new ones
   come once a program's lines are packed (xz's match finder: the chunks
   reached 2.4 times the records' bytes when only sp_new compacted), so
   the caller checks between accesses too. */
void sp_compact(sp_store *st)
{
   compact(st);
}

uint32_t sp_new(sp_store *st, uint32_t tid, uint32_t owner)
{
   uint32_t ref;
   head *h;

   sp_tidy(st);
   ref = take(st, rec_bytes(st, 1, 8, 0));
   h = at(st, ref);
   *h = (head){ owner, (uint16_t)tid, 0, 8, 0, 1 };
   if (++st->live > st->peak_live)
      st->peak_live = st->live;
   return ref;
}

void sp_free(sp_store *st, uint32_t ref)
{
   leave(st, ref);
   st->live--;
}

/* A site as one word, to compare in one step (sp_site has no padding). */
typedef char site_is_a_word[sizeof(sp_site) == sizeof(uint64_t) ? 1 : -1];
static uint64_t site_word(const void *s)
{
   uint64_t x;

   __builtin_memcpy(&x, s, sizeof x);
   return x;
}

/* In a record, a site's kinds (1 to 3) carry above their two bits the
   number of offsets in its set: a count's place is the sum of those of
   the sites before it, read from their words, not counted bit by bit
   (xz's lines of many sites: a fifth of sp_count went to the counting).
   In the site word (little-endian: pos_id, size, kinds), kinds' bits 2
   to 15 are its bits 50 to 63. */
#define KINDS_MASK 3u
#define NOFF_SHIFT 50
#define SITE_NAME (~((uint64_t)0x3fff << NOFF_SHIFT)) /* what names a site */

static uint32_t offsets_before_next(uint64_t site)
{
   return (uint32_t)(site >> NOFF_SHIFT);
}

static void one_offset_more(sp_site *s)
{
   s->kinds = (uint16_t)(s->kinds + (KINDS_MASK + 1));
}

/* Room for a site more: a quarter more (a record's copies, when it
   cannot grow where it is, are few even for lines of many sites). */
static uint32_t more_sites(uint32_t cap)
{
   uint32_t more = cap + 1 + cap / 4;

   return more < SP_MAX_SITES ? more : SP_MAX_SITES;
}

/* The site's number in the record, added if new; -1 past max_sites. */
static int site_number(sp_store *st, uint32_t *ref, const sp_site *s)
{
   head *h = at(st, *ref);
   uint32_t i, w;
   sp_site *to;

   for (i = 0; i < h->nsites; i++)
      if ((site_word(site_at(st, h, i)) & SITE_NAME) == site_word(s))
         return (int)i;
   if (h->nsites >= st->max_sites)
      return -1;
   if (h->nsites == sites_cap(h)) {
      resize(st, ref, more_sites(sites_cap(h)), h->cap, is_wide(h));
      h = at(st, *ref);
   }
   to = site_at(st, h, h->nsites);
   *to = *s;
   for (w = 0; w < st->words; w++)
      set_offsets_word(to, w, 0);
   return h->nsites++;
}

/* Bits set in x (the tool is built for any x86-64: no popcnt
   instruction, and libgcc's __popcountdi2 goes byte by byte). */
static uint32_t ones(uint64_t x)
{
   x -= (x >> 1) & 0x5555555555555555ull;
   x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
   x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
   return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* The count's place: the offsets set before (site, off). */
static uint32_t rank_of(const sp_store *st, head *h, uint32_t site, uint32_t off)
{
   uint32_t i, w, rank = 0;
   const sp_site *s;

   for (i = 0; i < site; i++)
      rank += offsets_before_next(site_word(site_at(st, h, i)));
   s = site_at(st, h, site);
   for (w = 0; w < off / 64; w++)
      rank += ones(offsets_word(s, w));
   return rank + ones(offsets_word(s, off / 64)
                                                & ((1ull << (off % 64)) - 1));
}

static uint64_t load8(const uint8_t *p)
{
   uint64_t x;

   __builtin_memcpy(&x, p, sizeof x);
   return x;
}

static void store8(uint8_t *p, uint64_t x)
{
   __builtin_memcpy(p, &x, sizeof x);
}

/* Bytes from..top of c moved up by one byte, the top first: eight at a
   time while eight are left (an insertion into xz's records of a
   hundred counts spent a sixth of sp_count byte by byte). */
static void bytes_up(uint8_t *c, uint32_t from, uint32_t top)
{
   uint32_t i = top + 1;                        /* the byte that gets top */

   for (; i >= from + 8; i -= 8)
      store8(c + i - 7, load8(c + i - 8));
   for (; i > from; i--)
      c[i] = c[i - 1];
}

/* Bytes from + 1..top of c moved up by one nibble (a byte takes the high
   half of the one below), the top first, eight at a time as bytes_up;
   byte from itself is left to the caller. */
static void nibbles_up(uint8_t *c, uint32_t from, uint32_t top)
{
   uint32_t i = top;

   for (; i >= from + 8; i -= 8)
      store8(c + i - 7, load8(c + i - 7) << 4 | c[i - 8] >> 4);
   for (; i > from; i--)
      c[i] = (uint8_t)(c[i] << 4 | c[i - 1] >> 4);
}

/* Counts rank.. moved up by one place. */
static void open_place(const sp_store *st, head *h, uint32_t rank)
{
   uint8_t *c = counts_of(st, h);

   if (is_wide(h)) {
      if (h->n > rank)
         bytes_up(c, rank, h->n - 1);
      return;
   }
   nibbles_up(c, rank / 2, h->n / 2);           /* (byte n / 2 gets count n) */
   if (rank % 2 == 0)
      c[rank / 2] = (uint8_t)(c[rank / 2] << 4);
   /* (an odd rank keeps its byte's low count; its high one is set next) */
}

/* A new count of 1 at rank for (site, off). */
static void insert_count(sp_store *st, uint32_t *ref, uint32_t site, uint32_t off,
                         uint32_t rank)
{
   head *h = at(st, *ref);
   sp_site *s;

   if (h->n == h->cap) {
      resize(st, ref, sites_cap(h), h->cap + 8u + h->cap / 4u, is_wide(h));
      h = at(st, *ref);
   }
   open_place(st, h, rank);
   set_count(st, h, rank, 1);
   h->n++;
   s = site_at(st, h, site);
   set_offsets_word(s, off / 64, offsets_word(s, off / 64) | 1ull << (off % 64));
   one_offset_more(s);
}

/* One more at rank: 0 past max_count. */
static int add_count(sp_store *st, uint32_t *ref, uint32_t rank)
{
   head *h = at(st, *ref);
   uint32_t c = count_at(st, h, rank);

   if (c >= st->max_count)
      return 0;
   if (c == NARROW_MAX && !is_wide(h)) {
      resize(st, ref, sites_cap(h), h->cap, 1);
      h = at(st, *ref);
   }
   set_count(st, h, rank, c + 1);
   return 1;
}

/* One more of a count known to be there, at rank, done in place where
   it needs no wider record: 1 if done, 0 if not (nothing changed). */
static int bump_in_place(const sp_store *st, head *h, uint32_t rank)
{
   uint8_t *c = counts_of(st, h);
   uint32_t shift = rank % 2 * 4, v;

   if (is_wide(h)) {
      if (c[rank] >= st->max_count)
         return 0;
      c[rank]++;
      return 1;
   }
   v = (uint32_t)(c[rank / 2] >> shift) & NARROW_MAX;
   if (v >= NARROW_MAX || v >= st->max_count)
      return 0;
   c[rank / 2] = (uint8_t)(c[rank / 2] + (1u << shift));
   return 1;
}

/* The site's number in the record (-1 if it has none yet) and the place
   of its count at off, in one pass over the sites (the ranks summed on
   the way); *present: whether the record has a count there. */
static int locate(const sp_store *st, head *h, const sp_site *s, uint32_t off,
                  uint32_t *rank, int *present)
{
   uint32_t stride = site_stride(st), i, w, r = 0;
   uint64_t want = site_word(s), word, name;
   const char *site = (const char *)(h + 1);

   for (i = 0; i < h->nsites; i++, site += stride) {
      name = site_word(site);
      if ((name & SITE_NAME) == want)
         break;
      r += offsets_before_next(name);
   }
   if (i == h->nsites)
      return -1;
   for (w = 0; w < off / 64; w++)
      r += ones(offsets_word((const sp_site *)site, w));
   word = offsets_word((const sp_site *)site, off / 64);
   *rank = r + ones(word & ((1ull << (off % 64)) - 1));
   *present = (word >> (off % 64)) & 1;
   return (int)i;
}

int sp_count(sp_store *st, uint32_t *ref, uint32_t tid, const sp_site *s, uint32_t off)
{
   head *h = at(st, *ref);
   int site, present = 0;
   uint32_t rank = 0;

   if (tid != h->tid)
      return 0;
   site = locate(st, h, s, off, &rank, &present);
   if (present)
      return bump_in_place(st, h, rank) || add_count(st, ref, rank);
   if (site < 0) {
      if ((site = site_number(st, ref, s)) < 0)
         return 0;
      rank = rank_of(st, at(st, *ref), (uint32_t)site, off);
   }
   insert_count(st, ref, (uint32_t)site, off, rank);
   return 1;
}

void sp_each(const sp_store *st, uint32_t ref, sp_visit visit, void *ctx)
{
   head *h = at(st, ref);
   uint32_t i, w, k = 0;
   uint64_t bits;
   sp_site *s, named;

   for (i = 0; i < h->nsites; i++) {
      s = site_at(st, h, i);
      named = *s;
      named.kinds &= KINDS_MASK;               /* (the site as counted) */
      for (w = 0; w < st->words; w++)
         for (bits = offsets_word(s, w); bits; bits &= bits - 1)
            visit(ctx, h->tid, &named, w * 64 + (uint32_t)__builtin_ctzll(bits),
                  count_at(st, h, k++));
   }
}
