/* NumPy memory in 64-byte aligned blocks (issue 35, item 6): the optional C module
 * ``npjax._core._aligned``.
 *
 * XLA's CPU backend reads a host buffer in place only when its address is a multiple of 64;
 * NumPy's large blocks come from malloc, at 16 mod 64, so ``npjax.jit`` copied every host
 * argument in on every call (a fresh 16 MB array: 16 MB a call). ``install()`` puts a NumPy
 * data memory handler (NEP 49) in front of the one in use: blocks of ``LARGE`` bytes or more
 * start at a multiple of 64; smaller ones keep their size class in the handler below (and its
 * small-block cache). Every block carries 16 bytes in front of it: the address the handler
 * below returned and the size asked of it, so ``free`` and ``realloc`` hand back exactly that.
 * Only the layout changes, never a value. The handler is NumPy's context variable: it reaches
 * what the importing thread's context allocates (threads started later begin with NumPy's
 * default).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <stdint.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL npjax_aligned_ARRAY_API
#include <numpy/arrayobject.h>

#define ALIGN 64
#define HEAD 16       /* the base address and the size asked of the handler below */
#define LARGE 1024    /* blocks this large start at a multiple of ALIGN */

static PyObject *below = NULL;           /* the handler in use before (a capsule) */
static PyDataMemAllocator *base = NULL;  /* its allocator */

static void *
place(void *raw, size_t asked, size_t size)
{
    uintptr_t at;
    if (raw == NULL) {
        return NULL;
    }
    if (size >= LARGE) {
        at = ((uintptr_t)raw + HEAD + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    }
    else {
        at = (uintptr_t)raw + HEAD;
    }
    ((void **)at)[-2] = raw;
    ((size_t *)at)[-1] = asked;
    return (void *)at;
}

static size_t
padded(size_t size)
{
    /* the bytes to ask the handler below for (0: too large) */
    size_t pad = size >= LARGE ? HEAD + ALIGN - 16 : HEAD;  /* (its blocks are 16-aligned) */
    return size > SIZE_MAX - pad ? 0 : size + pad;
}

static void *
a_malloc(void *ctx, size_t size)
{
    size_t asked = padded(size);
    if (asked == 0) {
        return NULL;
    }
    return place(base->malloc(base->ctx, asked), asked, size);
}

static void *
a_calloc(void *ctx, size_t nelem, size_t elsize)
{
    size_t size, asked;
    if (elsize != 0 && nelem > SIZE_MAX / elsize) {
        return NULL;
    }
    size = nelem * elsize;
    asked = padded(size);
    if (asked == 0) {
        return NULL;
    }
    return place(base->calloc(base->ctx, 1, asked), asked, size);
}

static void
a_free(void *ctx, void *ptr, size_t size)
{
    if (ptr == NULL) {
        return;
    }
    base->free(base->ctx, ((void **)ptr)[-2], ((size_t *)ptr)[-1]);
}

static void *
a_realloc(void *ctx, void *ptr, size_t size)
{
    /* a new block and a copy: the data's offset in the block below may change */
    void *raw, *now;
    size_t had;
    if (ptr == NULL) {
        return a_malloc(ctx, size);
    }
    raw = ((void **)ptr)[-2];
    had = ((size_t *)ptr)[-1] - (size_t)((char *)ptr - (char *)raw);  /* bytes usable */
    now = a_malloc(ctx, size);
    if (now == NULL) {
        return NULL;  /* (the old block stays, as realloc leaves it) */
    }
    memcpy(now, ptr, had < size ? had : size);
    base->free(base->ctx, raw, ((size_t *)ptr)[-1]);
    return now;
}

static PyDataMem_Handler handler = {
    "npjax_aligned_allocator",
    1,
    {
        NULL,
        a_malloc,
        a_calloc,
        a_realloc,
        a_free,
    },
};

static PyObject *
install(PyObject *self, PyObject *noargs)
{
    /* Put the aligned handler in front of the one in use (once); True when it is in use. */
    PyObject *capsule, *old;
    if (below == NULL) {
        below = PyDataMem_GetHandler();
        if (below == NULL) {
            return NULL;
        }
        PyDataMem_Handler *h = PyCapsule_GetPointer(below, "mem_handler");
        if (h == NULL) {
            Py_CLEAR(below);
            return NULL;
        }
        base = &h->allocator;
    }
    capsule = PyCapsule_New(&handler, "mem_handler", NULL);
    if (capsule == NULL) {
        return NULL;
    }
    old = PyDataMem_SetHandler(capsule);
    Py_DECREF(capsule);
    if (old == NULL) {
        return NULL;
    }
    Py_DECREF(old);
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS,
     "Make NumPy's blocks of 1024 bytes or more start at a multiple of 64 bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_aligned",
    "NumPy memory in 64-byte aligned blocks (XLA's CPU backend reads them in place).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__aligned(void)
{
    import_array();
    return PyModule_Create(&module);
}
