/*
** bandwidth_inline.h -- the per-unit path of the bandwidth model: closing
** a time unit (bw_close) and what it does to the windows, histograms and
** dominance.  Included by bandwidth.h only, so that the tool's glue gets
** it inlined (it runs for every time unit in which bytes enter or leave
** a window); the rules are at the top of bandwidth.h.
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#ifndef BANDWIDTH_INLINE_H
#define BANDWIDTH_INLINE_H

/* The window sum of path p changes at unit t (by +in, -out): the units
   since the last change are counted with the old sum. */
static inline void bw__window_change(bw_hist *h, bw_window *win, uint64_t t)
{
   if (t > win->since) {
      if (h->run_n && h->run_v == win->sum)
         h->run_n += t - win->since;
      else
         bw_hist_add(h, win->sum, t - win->since);
   }
   win->since = t;
}

/* Bytes of units up to `upto` - W leave the windows (at unit u + W). */
static inline void bw__leave(bw_core *c, uint64_t upto)
{
   uint32_t m = c->busy;
   uint64_t next = ~(uint64_t)0;

   for (; m; m &= m - 1) {
      int p = __builtin_ctz(m);
      bw_window *win;
      if (c->out[p] > upto) {
         if (c->out[p] < next)
            next = c->out[p];
         continue;
      }
      win = &c->win[p];
      do {
         bw__window_change(&c->hist[p], win, c->out[p]);
         win->sum -= win->qr[win->qhead];
         if (++win->qhead == c->w)
            win->qhead = 0;
         win->qn--;
         c->out[p] = win->qn ? win->qu[win->qhead] + c->w : ~(uint64_t)0;
      } while (c->out[p] <= upto);
      if (!win->qn)
         c->busy &= ~(1u << p);
      else if (c->out[p] < next)
         next = c->out[p];
   }
   c->next_out = next;
}

static inline void bw__enter(bw_core *c, uint64_t t)
{
   uint32_t m = c->dirty;

   for (; m; m &= m - 1) {
      int p = __builtin_ctz(m);
      bw_window *win = &c->win[p];
      uint64_t v = c->open[p];
      uint32_t at;
      if (!v)
         continue;
      bw__window_change(&c->hist[p], win, t);
      win->sum += v;
      at = win->qhead + win->qn;
      if (at >= c->w)
         at -= c->w;
      win->qu[at] = t;
      win->qr[at] = (uint32_t)v;
      if (!win->qn++)
         c->out[p] = t + c->w;
      c->total[p] += v;
      c->open[p] = 0;
      c->busy |= 1u << p;
      if (t + c->w < c->next_out)
         c->next_out = t + c->w;
   }
   c->dirty = 0;
}

/* The dominance state from unit t on; the units of the last one are
   counted. */
static inline void bw__dominance_change(bw_core *c, int dom, uint64_t s, uint64_t t)
{
   if (dom == c->dom && s == c->dom_s)
      return;
   if (t > c->dom_since) {
      if (c->dom < 0)
         c->peak_units += t - c->dom_since;
      else
         bw_hist_add(&c->dom_hist[c->dom], c->dom_s, t - c->dom_since);
   }
   c->dom = dom;
   c->dom_s = s;
   c->dom_since = t;
}

static inline void bw__dominate(bw_core *c, const bw_limits *l, uint64_t all_rd,
                     uint64_t all_wr, uint64_t t)
{
   int i, best = -1;
   double bestf = 0;
   uint64_t bests = 0;

   for (i = 0; i < l->n_order; i++) {
      int p = l->order[i];
      uint64_t s = p < BW_PATHS ? c->win[p].sum : p == BW_ALL_RD ? all_rd : all_wr;
      double f;
      if (s <= l->above[p])
         continue;
      f = (double)s * l->inv[p];
      if (f > bestf) {
         best = p;
         bestf = f;
         bests = s;
      }
   }
   bw__dominance_change(c, best, bests, t);
   c->last_all[0] = all_rd;
   c->last_all[1] = all_wr;
}

static inline int bw_close(bw_core *c, const bw_limits *lim, uint64_t all_rd,
             uint64_t all_wr)
{
   uint64_t t = c->units;

   if (t >= c->next_out)
      bw__leave(c, t);
   if (c->dirty)
      bw__enter(c, t);
   c->units = t + 1;
   if (!lim || !lim->any)
      return -1;
   bw__dominate(c, lim, all_rd, all_wr, t);
   return c->dom;
}

#endif /* BANDWIDTH_INLINE_H */
