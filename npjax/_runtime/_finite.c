/* npjax._runtime._finite: the finiteness screen of a ufunc's result in host memory, in C
   (issue 33, the device call's overhead on the CPU backend).

   ``all_finite(x)`` reads ``x`` (a ``jax.Array`` on the CPU backend, a NumPy array: anything
   with the buffer protocol) in place and answers whether every element is finite: True or
   False for a contiguous buffer of float16, float32, float64, complex64 or complex128 of at
   most ``LIMIT`` bytes, None for anything else (``_fp_screen._all_finite`` then asks NumPy).
   An element is finite when its exponent bits are not all ones, which is what ``isfinite``
   says; reading bits raises no floating-point flag, so no error state is involved. For a
   small result this is a fraction of the cost of a NumPy view and a dot product (the view
   alone costs what the buffer export does here, plus the array object). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Larger buffers go to NumPy's dot product, whose loop is vectorised and threaded. */
#define LIMIT ((Py_ssize_t)1 << 16)

/* Whether some element has all its exponent bits (``MASK`` in the 32- or 16-bit word
   ``STEP * i + AT``) set, in a loop the compiler vectorises; float64 is read by its high words
   (64-bit comparisons are not in every x86-64 vector set). */
#define SCREEN(T, MASK, STEP, AT)                                   \
    do {                                                            \
        const T *p = (const T *)view.buf;                           \
        Py_ssize_t n = view.len / (Py_ssize_t)(sizeof(T) * STEP);   \
        T bad = 0;                                                  \
        for (Py_ssize_t i = 0; i < n; i++)                          \
            bad |= (T)((p[STEP * i + AT] & (T)(MASK)) == (T)(MASK)); \
        ok = !bad;                                                  \
    } while (0)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HIGH 0
#else
#define HIGH 1
#endif

static PyObject *all_finite(PyObject *mod, PyObject *x) {
    Py_buffer view;
    if (PyObject_GetBuffer(x, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();  /* (bfloat16, several devices...): NumPy's answer instead */
        Py_RETURN_NONE;
    }
    const char *fmt = view.format != NULL ? view.format : "B";
    if (fmt[0] == '=' || fmt[0] == '<' || fmt[0] == '@')
        fmt++;
    int complex = fmt[0] == 'Z';
    if (complex)
        fmt++;
    int ok = -1;
    if (fmt[0] != '\0' && fmt[1] == '\0' && view.len <= LIMIT &&
        PyBuffer_IsContiguous(&view, 'A')) {
        if (fmt[0] == 'd' && view.itemsize == (complex ? 16 : 8))
            SCREEN(uint32_t, 0x7ff00000U, 2, HIGH);
        else if (fmt[0] == 'f' && view.itemsize == (complex ? 8 : 4))
            SCREEN(uint32_t, 0x7f800000U, 1, 0);
        else if (fmt[0] == 'e' && !complex && view.itemsize == 2)
            SCREEN(uint16_t, 0x7c00U, 1, 0);
    }
    PyBuffer_Release(&view);
    if (ok < 0)
        Py_RETURN_NONE;
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"all_finite", all_finite, METH_O,
     "Whether every element of a small float buffer is finite (None: not such a buffer)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "npjax._runtime._finite", NULL, -1,
                                    methods};

PyMODINIT_FUNC PyInit__finite(void) { return PyModule_Create(&module); }
