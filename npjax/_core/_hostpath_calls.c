/* npjax._core._hostpath, function and method calls: ``FunctionBase`` (``_hostpath.c``
   describes the module). */

#include "_hostpath.h"

/* --- function and method calls --------------------------------------------------------- */

/* ``FunctionBase``: the base of ``_fast_calls.HostFunction``, which stands in the public
   namespace for an npjax function that the host route runs (``_route.host_first``,
   ``_dispatch.npfunc``) and in ``ndarray`` for a method it runs (``host_method``). Its call
   runs the common case (host arrays, numbers and plain arguments, keywords the function
   names, called from the user's code) by calling NumPy's function, or NumPy's method of the
   array's data, from here: no Python frame between the user's line and NumPy, so NumPy's
   values, errors and warnings are its own. Anything else calls the Python function, which
   stays the one definition of the call. (Its object, ``FunctionObject``: ``_hostpath.h``.) */

PyObject *hp_functions_seen = NULL;  /* (for ``flush_counts``) */
static PyObject *place_result = NULL;    /* ``_route.place_result`` */
static PyTypeObject *np_dtype = NULL;    /* numpy.dtype */

#define MAX_CALL_ARGS 16

/* Whether NumPy gets ``o`` as it is on the host route (``_route.operand``): numbers,
   None, strings, types and dtypes. */
static int plain_argument(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    if (o == Py_None || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
        t == &PyComplex_Type || t == &PyUnicode_Type || PyType_Check(o))
        return 1;
    if (np_dtype != NULL && PyObject_TypeCheck(o, np_dtype)) return 1;
    return number_operand(o);
}

/* An argument as NumPy gets it in the common case (borrowed): a host array's data, a plain
   argument; for a tuple or list that holds host arrays, a new one holding their data
   (``*owned`` set). NULL (no error) when the Python function must run. */
static PyObject *call_argument(PyObject *o, int *owned) {
    *owned = 0;
    PyTypeObject *t = Py_TYPE(o);
    if (t == hp_Arr) return host_data(o, NULL, NULL);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o), arrays = 0;
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (Py_TYPE(item) == hp_Arr) {
                if (host_data(item, NULL, NULL) == NULL) return NULL;
                arrays++;
            }
            else if (!(PLAIN_NUMBER(item) || item == Py_None || PyBool_Check(item) ||
                       number_operand(item)))
                return NULL;
        }
        if (arrays == 0) return o;
        PyObject *new = t == &PyTuple_Type ? PyTuple_New(n) : PyList_New(n);
        if (new == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (Py_TYPE(item) == hp_Arr) item = host_data(item, NULL, NULL);
            PySequence_Fast_ITEMS(new)[i] = Py_NewRef(item);
        }
        *owned = 1;
        return new;
    }
    return plain_argument(o) ? o : NULL;
}

/* The npjax arrays among the arguments (one level into tuples and lists), as
   ``_route.npjax_operands`` lists them. */
static PyObject *call_inputs(PyObject *const *args, Py_ssize_t n) {
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = args[i];
        if (Py_TYPE(a) == hp_Arr) {
            if (PyList_Append(found, a) < 0) goto error;
        }
        else if (PyTuple_CheckExact(a) || PyList_CheckExact(a)) {
            Py_ssize_t m = PySequence_Fast_GET_SIZE(a);
            for (Py_ssize_t j = 0; j < m; j++) {
                PyObject *item = PySequence_Fast_ITEMS(a)[j];
                if (Py_TYPE(item) == hp_Arr && PyList_Append(found, item) < 0) goto error;
            }
        }
    }
    PyObject *r = PyList_AsTuple(found);
    Py_DECREF(found);
    return r;
error:
    Py_DECREF(found);
    return NULL;
}

/* NumPy's result of a call (the reference taken) placed as ``try_host`` places it: a new
   array of a device dtype within the limit is a new host owner, an array NumPy was given or
   one that views one, a tuple or a list go to ``place_result``; anything else (NumPy's
   scalars, Python objects) is the result as it is. */
static PyObject *call_placed(PyObject *result, Py_ssize_t limit, PyObject *const *args,
                             PyObject *const *ops, Py_ssize_t n) {
    if (Py_TYPE(result) == hp_NpArr) {
        int given = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (ops[i] == result) given = 1;
        if (!given && NP(result)->base == NULL && np_size(result) <= limit) {
            PyObject *dtype = NP(result)->descr;
            int device = dtype == hp_f8 || dtype == hp_b1;
            if (!device) {
                PyObject *known = PyDict_GetItemWithError(hp_device_dtypes, dtype);
                if (known == NULL && PyErr_Occurred()) {
                    Py_DECREF(result);
                    return NULL;
                }
                device = known == Py_True;
            }
            if (device) {
                PyObject *new = hp_new_owner(result);
                Py_DECREF(result);
                return new;
            }
        }
    }
    else if (!PyTuple_Check(result) && !PyList_CheckExact(result)) return result;
    PyObject *inputs = call_inputs(args, n), *lim = PyLong_FromSsize_t(limit), *r = NULL;
    if (inputs && lim)
        r = PyObject_Vectorcall(place_result, (PyObject *[]){result, inputs, lim}, 3, NULL);
    Py_XDECREF(inputs);
    Py_XDECREF(lim);
    Py_DECREF(result);
    return r;
}

static PyObject *function_fast(FunctionObject *f, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, int *done) {
    *done = 0;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames), all = nargs + nkw;
    if (nargs > f->max_args || all > MAX_CALL_ARGS) return NULL;
    if (f->method != NULL && (nargs < 1 || Py_TYPE(args[0]) != hp_Arr)) return NULL;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        int known = PySet_Contains(f->keywords, PyTuple_GET_ITEM(kwnames, i));
        if (known <= 0) {
            if (known < 0) PyErr_Clear();
            return NULL;
        }
    }
    PyObject *ops[MAX_CALL_ARGS];
    int owned[MAX_CALL_ARGS];
    Py_ssize_t made = 0;
    PyObject *result = NULL;
    for (; made < all; made++)
        if ((ops[made] = call_argument(args[made], &owned[made])) == NULL) break;
    if (made < all) {
        if (PyErr_Occurred()) *done = 1;
        goto release;
    }
    Py_ssize_t limit = hp_host_limit();
    if (limit == -2) {
        *done = 1;
        goto release;
    }
    if (limit < 0 || !hp_user_frame()) goto release;
    *done = 1;
    f->pending++;  /* (counted before the call, as ``try_host`` counts it) */
    /* (``ops[0]`` is a NumPy array of the exact type: its method is ``np_method``) */
    result = f->np_method != NULL ? PyObject_Vectorcall(f->np_method, ops, nargs, kwnames)
             : f->method != NULL  ? PyObject_VectorcallMethod(f->method, ops, nargs, kwnames)
                                  : PyObject_Vectorcall(f->np_fn, ops, nargs, kwnames);
    if (result != NULL && f->owns && nargs > 0 && result == ops[0]) {
        Py_DECREF(result);  /* (``a.astype(a.dtype, copy=False)``: the array itself) */
        result = Py_NewRef(args[0]);
    }
    else if (result != NULL && f->owns && Py_TYPE(result) == hp_NpArr) {
        PyObject *new = hp_new_owner(result);  /* (``host_owner``: ``ndarray.copy``) */
        Py_DECREF(result);
        result = new;
    }
    else if (result != NULL) result = call_placed(result, limit, args, ops, all);
release:
    for (Py_ssize_t i = 0; i < made; i++)
        if (owned[i]) Py_DECREF(ops[i]);
    return result;
}

static PyObject *function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames) {
    FunctionObject *f = (FunctionObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (hp_enabled && f->py_fn != NULL) {
        int done;
        PyObject *r = function_fast(f, args, n, kwnames, &done);
        if (r != NULL || done) return r;
    }
    if (f->py_fn == NULL) {
        PyErr_SetString(PyExc_TypeError, "npjax: the Python function is not installed");
        return NULL;
    }
    return PyObject_Vectorcall(f->py_fn, args, nargsf, kwnames);
}

static PyObject *function_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None || !((FunctionObject *)self)->binds)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static int function_traverse(PyObject *self, visitproc visit, void *arg) {
    FunctionObject *f = (FunctionObject *)self;
    Py_VISIT(f->np_fn);
    Py_VISIT(f->py_fn);
    Py_VISIT(f->method);
    Py_VISIT(f->np_method);
    Py_VISIT(f->keywords);
    Py_VISIT(f->cell);
    return 0;
}

static int function_clear(PyObject *self) {
    FunctionObject *f = (FunctionObject *)self;
    Py_CLEAR(f->np_fn);
    Py_CLEAR(f->py_fn);
    Py_CLEAR(f->method);
    Py_CLEAR(f->np_method);
    Py_CLEAR(f->keywords);
    Py_CLEAR(f->cell);
    return 0;
}

static void function_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    function_clear(self);
    tp->tp_free(self);
}

/* (NumPy's function or None, the Python function, a method's name or None, keyword names,
   count cell, most positional arguments, binds, owns): the call's facts. */
static PyObject *function_set(PyObject *self, PyObject *args) {
    PyObject *np_fn, *py_fn, *method, *keywords, *cell;
    Py_ssize_t max_args;
    int binds, owns;
    if (!PyArg_ParseTuple(args, "OOOO!O!npp", &np_fn, &py_fn, &method, &PyFrozenSet_Type,
                          &keywords, &PyList_Type, &cell, &max_args, &binds, &owns))
        return NULL;
    if (PyList_GET_SIZE(cell) != 1 || (method != Py_None && !PyUnicode_Check(method)) ||
        (np_fn == Py_None) == (method == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "_hostpath_set: bad arguments");
        return NULL;
    }
    FunctionObject *f = (FunctionObject *)self;
    Py_XSETREF(f->np_fn, np_fn == Py_None ? NULL : Py_NewRef(np_fn));
    Py_XSETREF(f->py_fn, Py_NewRef(py_fn));
    Py_XSETREF(f->method, method == Py_None ? NULL : Py_NewRef(method));
    PyObject *descr = NULL;  /* NumPy's method descriptor, looked up once */
    if (method != Py_None && hp_NpArr != NULL) {
        descr = PyObject_GetAttr((PyObject *)hp_NpArr, method);
        if (descr == NULL) PyErr_Clear();
        else if (!PyObject_TypeCheck(descr, &PyMethodDescr_Type)) Py_CLEAR(descr);
    }
    Py_XSETREF(f->np_method, descr);
    Py_XSETREF(f->keywords, Py_NewRef(keywords));
    Py_XSETREF(f->cell, Py_NewRef(cell));
    f->max_args = max_args;
    f->binds = binds;
    f->owns = owns;
    f->vectorcall = function_vectorcall;
    if (hp_functions_seen == NULL && (hp_functions_seen = PyList_New(0)) == NULL) return NULL;
    if (PyList_Append(hp_functions_seen, self) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef function_methods[] = {
    {"_hostpath_set", function_set, METH_VARARGS, "The C call's facts."},
    {NULL, NULL, 0, NULL}};

PyTypeObject hp_FunctionBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "npjax._core._hostpath.FunctionBase",
    .tp_doc = "The base of npjax's host functions: a call's common case in C.",
    .tp_basicsize = sizeof(FunctionObject),
    .tp_vectorcall_offset = offsetof(FunctionObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_dealloc = function_dealloc,
    .tp_traverse = function_traverse,
    .tp_clear = function_clear,
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = function_get,
    .tp_methods = function_methods,
};

/* Let instances of ``cls`` (a Python subclass of FunctionBase) be called by the vectorcall
   protocol: heap types do not inherit it. ``binds``: its instances all bind as methods, so
   ``a.name(...)`` may call one with ``a`` first, no bound method made (as for a Python
   function: ``Py_TPFLAGS_METHOD_DESCRIPTOR``), and the class is made immutable: the
   interpreter specializes ``a.name(...)`` (``LOAD_METHOD_NO_DICT``, as for a Python
   function) only for a method whose class cannot change; otherwise each call looks the
   name up in the type again. */
PyObject *hp_use_function_vectorcall(PyObject *mod, PyObject *args) {
    PyObject *cls;
    int binds;
    if (!PyArg_ParseTuple(args, "Op", &cls, &binds)) return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &hp_FunctionBaseType)) {
        PyErr_SetString(PyExc_TypeError, "a subclass of FunctionBase");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)cls;
    if (tp->tp_call != PyVectorcall_Call) Py_RETURN_FALSE;
    tp->tp_vectorcall_offset = offsetof(FunctionObject, vectorcall);
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    if (binds) tp->tp_flags |= Py_TPFLAGS_METHOD_DESCRIPTOR;
#ifdef Py_TPFLAGS_IMMUTABLETYPE
    if (binds) tp->tp_flags |= Py_TPFLAGS_IMMUTABLETYPE;
#endif
    PyType_Modified(tp);
    Py_RETURN_TRUE;
}

PyObject *hp_configure_calls(PyObject *mod, PyObject *args) {
    PyObject *place, *dtype;
    if (!PyArg_ParseTuple(args, "OO!", &place, &PyType_Type, &dtype)) return NULL;
    Py_XSETREF(place_result, Py_NewRef(place));
    Py_XSETREF(np_dtype, (PyTypeObject *)Py_NewRef(dtype));
    Py_RETURN_NONE;
}
