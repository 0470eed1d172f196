/*
** lineset.c -- set of touched lines as bitmaps per chunk (see lineset.h).
**
** The hash table of chunks uses linear probing and doubles when half
** full; chunks are never removed except by lset_clear.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include "lineset.h"
#include "cachesim.h"          /* cs_alloc, cs_free */

#define WORDS_PER_CHUNK (LSET_CHUNK_LINES / 64)

static uint32_t slot_of(const lineset *s, uint64_t key)
{
   return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->mask;
}

lineset *lset_new(void)
{
   lineset *s = cs_alloc(sizeof(lineset));

   s->mask = 63;
   s->slot = cs_alloc(sizeof(lset_slot) * (s->mask + 1));
   return s;
}

static void free_chunks(lineset *s)
{
   uint32_t i;

   for (i = 0; i <= s->mask; i++)
      if (s->slot[i].key) {
         cs_free(s->slot[i].bits);
         s->slot[i].key = 0;
         s->slot[i].bits = 0;
      }
   s->chunks = 0;
   s->last_key[0] = s->last_key[1] = 0;
   s->last_bits[0] = s->last_bits[1] = 0;
}

void lset_delete(lineset *s)
{
   if (!s)
      return;
   free_chunks(s);
   cs_free(s->slot);
   cs_free(s);
}

void lset_clear(lineset *s)
{
   free_chunks(s);
}

static lset_slot *find_slot(lineset *s, uint64_t key)
{
   uint32_t i = slot_of(s, key);

   while (s->slot[i].key && s->slot[i].key != key)
      i = (i + 1) & s->mask;
   return &s->slot[i];
}

static void grow(lineset *s)
{
   lset_slot *old = s->slot;
   uint32_t i, old_n = s->mask + 1;

   s->mask = 2 * old_n - 1;
   s->slot = cs_alloc(sizeof(lset_slot) * (s->mask + 1));
   for (i = 0; i < old_n; i++)
      if (old[i].key)
         *find_slot(s, old[i].key) = old[i];
   cs_free(old);
}

/* The bitmap of a chunk, created (all zero) on first use. */
static uint64_t *chunk_bits(lineset *s, uint64_t key)
{
   lset_slot *sl = find_slot(s, key);

   if (!sl->key) {
      sl->key = key;
      sl->bits = cs_alloc(sizeof(uint64_t) * WORDS_PER_CHUNK);
      if (++s->chunks * 2 > s->mask + 1) {
         uint64_t *bits = sl->bits;
         grow(s);
         return bits;
      }
   }
   return sl->bits;
}

int lset_test_and_add(lineset *s, uint64_t line)
{
   uint64_t key = (line >> LSET_CHUNK_BITS) + 1;
   uint32_t bit = (uint32_t)line & (LSET_CHUNK_LINES - 1);
   uint64_t *w, m;

   if (key != s->last_key[0]) {
      uint64_t *bits = key == s->last_key[1] ? s->last_bits[1]
                                                                : chunk_bits(s, key);
      s->last_key[1] = s->last_key[0];
      s->last_bits[1] = s->last_bits[0];
      s->last_key[0] = key;
      s->last_bits[0] = bits;
   }
   w = &s->last_bits[0][bit >> 6];
   m = 1ull << (bit & 63);
   if (*w & m)
      return 1;
   *w |= m;
   return 0;
}
