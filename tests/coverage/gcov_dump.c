/* Coverage of the tool (tests/coverage/coverage.sh), linked only into a
   coverage build. The tool is a static executable without libc, so gcc's
   usual gcov runtime (constructors, fopen, atexit) cannot run in it;
   compiled with -fprofile-info-section=gcov_info, each object instead
   leaves a pointer to its counters in the section gcov_info, and at the
   tool's exit this file streams them as .gcda data
   (__gcov_info_to_gcda, gcc's freestanding interface) through Valgrind's
   own file functions into $CGBD_GCOV_DIR, one file per run and object,
   named <pid>@<object's .gcda path with '/' written as '#'> (the tool
   API has no mkdir). coverage.sh sums the runs' files.

   The exit is caught without touching the tool's sources: the link wraps
   VG_(basic_tool_funcs) (-Wl,--wrap=vgPlain_basic_tool_funcs), so that
   the tool's fini callback is ours, which calls the tool's first. */

#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

struct gcov_info;
void __gcov_info_to_gcda(const struct gcov_info *info,
                         void (*filename_fn)(const char *, void *),
                         void (*dump_fn)(const void *, unsigned, void *),
                         void *(*allocate_fn)(unsigned, void *),
                         void *arg);

/* the linker's bounds of the section the objects' pointers are in */
extern const struct gcov_info *__start_gcov_info[];
extern const struct gcov_info *__stop_gcov_info[];

typedef void (*post_clo_init_fn)(void);
typedef IRSB *(*instrument_fn)(VgCallbackClosure *, IRSB *,
                               const VexGuestLayout *, const VexGuestExtents *,
                               const VexArchInfo *, IRType, IRType);
typedef void (*fini_fn)(Int);

void __real_vgPlain_basic_tool_funcs(post_clo_init_fn, instrument_fn, fini_fn);
void __wrap_vgPlain_basic_tool_funcs(post_clo_init_fn, instrument_fn, fini_fn);

static fini_fn tool_fini;
static HChar run_dir[4096];
static Int out_fd = -1;

static void close_out(void)
{
   if (out_fd >= 0)
      VG_(close)(out_fd);
   out_fd = -1;
}

/* a new object's data begins: its own file in the run's directory */
static void open_gcda(const char *name, void *arg)
{
   HChar path[4096 + 1024];
   Int n = VG_(snprintf)(path, sizeof path, "%s", run_dir);
   for (; *name && n < (Int)sizeof path - 1; name++)
      path[n++] = *name == '/' ? '#' : *name;
   path[n] = 0;
   close_out();
   SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, 0644);
   if (!sr_isError(r))
      out_fd = sr_Res(r);
}

static void write_gcda(const void *data, unsigned len, void *arg)
{
   if (out_fd >= 0)
      VG_(write)(out_fd, data, len);
}

/* only value profiles (not made by --coverage) ask for memory */
static void *no_memory(unsigned len, void *arg)
{
   return NULL;
}

static void dump_counters(void)
{
   const HChar *dir = VG_(getenv)("CGBD_GCOV_DIR");
   if (!dir)
      return;
   VG_(snprintf)(run_dir, sizeof run_dir, "%s/%d@", dir, VG_(getpid)());
   for (const struct gcov_info **i = __start_gcov_info; i < __stop_gcov_info; i++)
      __gcov_info_to_gcda(*i, open_gcda, write_gcda, no_memory, NULL);
   close_out();
}

static void fini_then_dump(Int exitcode)
{
   tool_fini(exitcode);
   dump_counters();
}

void __wrap_vgPlain_basic_tool_funcs(post_clo_init_fn post_clo_init,
                                     instrument_fn instrument, fini_fn fini)
{
   tool_fini = fini;
   __real_vgPlain_basic_tool_funcs(post_clo_init, instrument, fini_then_dump);
}

/* Named by the objects' counter descriptions and by libgcov's stream
   writer, never called here: the runtime's versions would pull libc in
   (abort is the core's). */
void __gcov_merge_add(void *counters, unsigned n);
void __gcov_merge_add(void *counters, unsigned n)
{
}

void *mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off);
void *mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off)
{
   return (void *)-1;
}
