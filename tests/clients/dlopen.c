/* Calls into a dlopened library through dlsym. argv[1] is the path of
   the library (dlopen_lib.so). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlopen <lib.so>\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*entry)(int) = (int (*)(int))dlsym(h, "lib_entry");
    if (!entry)
        return 1;
    int r = 0;
    for (int i = 0; i < 5; i++)
        r += entry(40);
    printf("dlopen: %d\n", r);
    dlclose(h);
    return 0;
}
