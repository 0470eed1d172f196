/* perf benchmark: pointer chasing through a singly linked list whose nodes
 * are visited in a random order, so almost every step misses the caches
 * once the list outgrows them.  Usage: chase NODES STEPS */
#include <stdio.h>
#include <stdlib.h>

typedef struct node { struct node *next; long payload[7]; } node; /* 64 bytes */

static unsigned long rng = 88172645463325252UL;
static unsigned long next_rand(void)
{
   rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
   return rng;
}

static node *build(size_t n)
{
   node *pool = malloc(n * sizeof(node));
   size_t *order = malloc(n * sizeof(size_t));
   for (size_t i = 0; i < n; i++) order[i] = i;
   for (size_t i = n - 1; i > 0; i--) {
      size_t j = next_rand() % (i + 1), t = order[i];
      order[i] = order[j]; order[j] = t;
   }
   for (size_t i = 0; i < n; i++) {
      pool[order[i]].next = &pool[order[(i + 1) % n]];
      pool[order[i]].payload[0] = (long)i;
   }
   free(order);
   return &pool[0];   /* the list is one cycle through every node */
}

static long walk(node *p, long steps)
{
   long s = 0;
   while (steps-- > 0) { s += p->payload[0]; p = p->next; }
   return s;
}

int main(int argc, char **argv)
{
   if (argc != 3) { fprintf(stderr, "usage: chase NODES STEPS\n"); return 2; }
   node *head = build((size_t)atol(argv[1]));
   printf("%ld\n", walk(head, atol(argv[2])));
   return 0;
}
