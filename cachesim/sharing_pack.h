/*
** sharing_pack.h -- one thread's counts on a cache line, packed (for
** sharing.c: the lines whose one-thread history left the trie).
**
** A record holds, for one thread, a count per key (site, offset): the
** site is what an instruction's access is apart from its address (code
** position number, size, kinds), the offset its first byte in the line.
** It is a set, not a sequence: the reports sort a line's counts
** (sharing.c, close_shared), so the order in which the keys came is not
** kept.  Per site of the line: the site (8 bytes, its kinds carrying the
** number of offsets set above their two bits) and a bit set of the
** offsets it touched (a bit per byte of the line); then a count per
** offset set, by site and offset, of 4 bits until one passes 15, of 8
** bits after.  A hash table's line that three sites touched at 70
** offsets takes about 100 bytes.
**
** Records live in chunks of the store, one after the other, reached by a
** 32-bit reference.  A record that grows does so in place if it is the
** last of its chunk and the chunk has room (most growths: a record grows
** several times in a row, as a history is replayed into it or a burst of
** accesses brings new keys), else it moves to the end; the space it
** leaves is reclaimed by sliding the records down (sp_new does, when a
** fifth of the chunks' bytes is left space), which tells the owner of
** each record that moved (sp_moved).  All records go at once at a
** segment's end (sp_reset).
**
** Pure C: memory from cs_alloc/cs_free (cachesim.h).
*/
#ifndef SHARING_PACK_H
#define SHARING_PACK_H

#include <stdint.h>

#define SP_MAX_COUNT 255
#define SP_MAX_SITES 127

typedef struct {
   uint32_t pos_id;
   uint16_t size;
   uint16_t kinds;             /* 1 loads, 2 stores, 3 both */
} sp_site;

/* A record moved: its owner's reference is now ref. */
typedef void (*sp_moved)(void *ctx, uint32_t owner, uint32_t ref);

typedef struct {
   char    **chunk;
   uint32_t *chunk_used;        /* bytes used of each chunk */
   uint32_t  nchunks, chunk_cap;
   uint32_t  words;             /* 64-bit words of a site's offset set */
   uint32_t  max_count, max_sites;
   sp_moved  moved;
   void     *moved_ctx;
   uint64_t  left;              /* bytes of records freed or moved, not
                                   yet reclaimed */
   uint64_t  bytes, peak_bytes; /* chunks allocated */
   uint64_t  live, peak_live;   /* records */
   uint64_t  used_bytes, peak_used; /* the records' bytes */
   uint64_t  compactions;
   uint64_t  grows, grows_in_place; /* records that grew, and of those
                                   the ones that did not move */
   uint64_t  compact_moved;     /* bytes that compactions moved */
} sp_store;

void     sp_init(sp_store *, uint32_t line_size, sp_moved, void *ctx);
void     sp_fini(sp_store *);
void     sp_reset(sp_store *);             /* frees every record */

/* An empty record of thread tid, owned by owner (for sp_moved). */
uint32_t sp_new(sp_store *, uint32_t tid, uint32_t owner);
void     sp_free(sp_store *, uint32_t ref);

/* Reclaims the space of freed and moved records if it is due (a fifth
   of the chunks, at least one chunk; sp_new does too); records move
   (sp_moved), so the caller holds no reference but its owners'.  The
   test is inline: the model makes it once a block. */
#define SP_CHUNK_BYTES (1u << 18)
void     sp_compact(sp_store *);
static inline void sp_tidy(sp_store *st)
{
   if (st->left >= SP_CHUNK_BYTES && st->left * 5 >= st->bytes)
      sp_compact(st);
}

/* One access of thread tid at offset off with site s: 1 if counted; 0
   if it does not fit (another thread, a count past max_count, a site past
   max_sites), and then nothing changed.  *ref may change (the record
   grew), but no other record moves. */
int      sp_count(sp_store *, uint32_t *ref, uint32_t tid, const sp_site *s,
                  uint32_t off);

/* Every count of the record (in site and offset order). */
typedef void (*sp_visit)(void *ctx, uint32_t tid, const sp_site *s, uint32_t off,
                         uint32_t count);
void     sp_each(const sp_store *, uint32_t ref, sp_visit, void *ctx);

#endif /* SHARING_PACK_H */
