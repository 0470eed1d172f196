/* Shared library loaded at run time by dlopen.c. */
int lib_helper(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i % 5;
    return s;
}

int lib_entry(int n)
{
    int r = 0;
    for (int i = 0; i < n; i++)
        r += lib_helper(i);
    return r;
}
