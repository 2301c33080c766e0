/* npjax._core._hostpath, operators: ``a + b`` and the other binary operators (reflected and
   in place), comparisons and unary operators of ``ArrayBase`` (``_hostpath.c`` describes
   the module). */

#include "_hostpath.h"

/* --- binary operators ---------------------------------------------------------------- */

static binaryfunc inplace[NOPS] = {PyNumber_InPlaceAdd, PyNumber_InPlaceSubtract,
                                   PyNumber_InPlaceMultiply, PyNumber_InPlaceTrueDivide,
                                   PyNumber_InPlaceMatrixMultiply, PyNumber_InPlaceAnd,
                                   PyNumber_InPlaceOr, PyNumber_InPlaceXor};

/* Whether the shapes of ``x`` and ``y`` broadcast to more elements than either has (or
   do not broadcast: -1): only then may ``_route.grows_off_host`` say yes. */
static int grows(PyObject *x, PyObject *y) {
    int nx = NP(x)->nd, ny = NP(y)->nd, n = nx > ny ? nx : ny;
    Py_ssize_t size = 1;
    for (int i = 1; i <= n; i++) {
        Py_ssize_t a = i <= nx ? NP(x)->dimensions[nx - i] : 1;
        Py_ssize_t b = i <= ny ? NP(y)->dimensions[ny - i] : 1;
        if (a != b && a != 1 && b != 1) return 0;  /* (-1 elements: NumPy's error) */
        size *= a == 1 ? b : a;
    }
    Py_ssize_t xs = np_size(x), ys = np_size(y);
    return size > (xs > ys ? xs : ys);
}

/* Whether ``self <op> other`` may write its result into ``self``'s data ``data`` (``other``
   as NumPy gets it), as the Python member decides it (``_host_paths._temporary``, whose
   reference counts include three of its own frames'): 1 yes, 0 no, -1 an error, 2 where
   this build cannot read the calling frame. Called from the user's code (``hp_user_frame``). */
static int temporary(int op, int side, PyObject *self, PyObject *data, PyObject *other) {
    const char *kinds = hp_elide_kinds[op][side];
    if (kinds == NULL || strchr(kinds, NP_KIND(data)) == NULL) return 0;
    PyObject *size = PyObject_GetAttr(NP(data)->descr, hp_itemsize_name);
    if (size == NULL) return -1;
    Py_ssize_t itemsize = PyLong_AsSsize_t(size);
    Py_DECREF(size);
    if (itemsize == -1 && PyErr_Occurred()) return -1;
    if (np_size(data) * itemsize < hp_elide_bytes) return 0;
    if (Py_TYPE(other) == hp_NpArr) {
        if (NP(other)->descr != NP(data)->descr) {
            int ne = PyObject_RichCompareBool(NP(other)->descr, NP(data)->descr, Py_NE);
            if (ne != 0) return ne < 0 ? -1 : 0;
        }
        if (NP(other)->nd != 0 && !same_shape(other, data)) return 0;
    }
    else if (PLAIN_NUMBER(other)) {
        if (NP_KIND(data) != 'f' && NP_KIND(data) != 'c') return 0;
    }
    else {  /* NumPy's number scalar: its dtype */
        PyObject *dt = PyObject_GetAttr(other, hp_dtype_name);
        if (dt == NULL) return -1;
        int ne = PyObject_RichCompareBool(dt, NP(data)->descr, Py_NE);
        Py_DECREF(dt);
        if (ne != 0) return ne < 0 ? -1 : 0;
    }
    PyObject *readonly = SLOT(self, hp_off_readonly);
    if (SLOT(self, hp_off_cache) != Py_None) return 0;
    if (readonly != Py_False) {
        int ro = PyObject_IsTrue(readonly);
        if (ro != 0) return ro < 0 ? -1 : 0;
    }
    if (NP(data)->base != NULL || !(NP(data)->flags & NP_WRITEABLE)) return 0;
    if (Py_REFCNT(self) > hp_temporary_refs || Py_REFCNT(data) > hp_buffer_refs) return 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed: the code applying the operator */
    if (frame == NULL) return 0;
    PyCodeObject *code = PyFrame_GetCode(frame);
    PyObject *co_code = PyCode_GetCode(code);
    Py_DECREF(code);
    if (co_code == NULL) return -1;
    int lasti = PyFrame_GetLasti(frame), applies = 0;
    if (lasti >= 0 && lasti < PyBytes_GET_SIZE(co_code))
        applies = hp_binary_opcode[(unsigned char)PyBytes_AS_STRING(co_code)[lasti]];
    Py_DECREF(co_code);
    return applies;
#else
    return 2;
#endif
}

/* The fast case of ``left <op> right`` (in place when ``in_place``), or NULL with no error
   set when the Python member must run. */
static PyObject *fast_binary(int op, PyObject *left, PyObject *right, int in_place,
                             int *done) {
    PyObject *x, *y, *self, *other;
    Py_ssize_t size, items;
    int side;
    *done = 0;
    if (!hp_enabled) return NULL;
    if (Py_TYPE(left) == hp_Arr) {
        self = left, other = right, side = in_place ? 2 : 0;
        x = host_data(left, NULL, NULL);
        if (x == NULL) return NULL;
        size = items = np_size(x);
        if (Py_TYPE(right) == hp_Arr) {
            y = host_data(right, NULL, NULL);
            if (y == NULL) return NULL;
            size *= np_size(y);  /* (bounds an elementwise result's size) */
        }
        else if (number_operand(right)) y = right;
        else return NULL;
    }
    else if (Py_TYPE(right) == hp_Arr && !in_place && number_operand(left)) {
        self = right, other = left, side = 1;
        y = host_data(right, NULL, NULL);
        if (y == NULL) return NULL;
        x = left;
        size = items = np_size(y);
    }
    else return NULL;
    Py_ssize_t limit = hp_host_limit();
    if (limit == -2) { *done = 1; return NULL; }
    if (limit < 0 || !hp_user_frame()) return NULL;
    if (size > limit && Py_TYPE(x) == hp_NpArr && Py_TYPE(y) == hp_NpArr && !same_shape(x, y) &&
        grows(x, y)) {
        /* a result that may leave the host: ``_route.grows_off_host`` decides */
        PyObject *lim = PyLong_FromSsize_t(limit);
        if (lim == NULL) { *done = 1; return NULL; }
        PyObject *args[3] = {x, y, lim};
        PyObject *grows = PyObject_Vectorcall(hp_grows_off_host, args, 3, NULL);
        Py_DECREF(lim);
        if (grows == NULL) { *done = 1; return NULL; }
        int off = PyObject_IsTrue(grows);
        Py_DECREF(grows);
        if (off < 0) { *done = 1; return NULL; }
        if (off) return NULL;
    }
    int elide = 0;
    if (!in_place && items >= hp_elide_items) {
        elide = temporary(op, side, self, side == 1 ? y : x, side == 1 ? x : y);
        if (elide < 0) { *done = 1; return NULL; }
        if (elide > 1) return NULL;  /* (no frame read here: Python's member decides) */
    }
    hp_pending[op][side]++;
    *done = 1;
    PyObject *result;
    if (elide) {  /* written into the temporary's data: NumPy's in-place operator */
        hp_elided[op]++;
        result = side == 1 ? inplace[op](y, x) : inplace[op](x, y);
    }
    /* NumPy's operator on the NumPy operands, in the user's order */
    else result = in_place ? inplace[op](x, y) : call2(hp_np_ops[op], x, y);
    if (result == NULL) return NULL;
    if (result == (side == 1 ? y : x)) {  /* in place */
        Py_DECREF(result);
        return Py_NewRef(self);
    }
    return placed(result, limit, 2, (PyObject *[]){self, other});
}

/* Python's protocol for a binary slot shared by a type's ``__op__`` and ``__rop__``
   (``SLOT1BINFULL``): the Python members, ``left``'s first. */
static PyObject *slow_binary(int op, PyObject *left, PyObject *right) {
    if (Py_TYPE(left) == hp_Arr) {
        PyObject *r = call2(hp_fb[op][0], left, right);
        if (r != Py_NotImplemented || Py_TYPE(right) == hp_Arr) return r;
        Py_DECREF(r);
    }
    if (Py_TYPE(right) == hp_Arr) return call2(hp_fb[op][1], right, left);
    Py_RETURN_NOTIMPLEMENTED;
}

#define BINARY(NAME, OP)                                                                  \
    static PyObject *NAME(PyObject *left, PyObject *right) {                             \
        int done;                                                                        \
        PyObject *r = fast_binary(OP, left, right, 0, &done);                            \
        if (r != NULL || done) return r;                                                 \
        return slow_binary(OP, left, right);                                             \
    }                                                                                    \
    static PyObject *NAME##_inplace(PyObject *left, PyObject *right) {                   \
        int done;                                                                        \
        PyObject *r = fast_binary(OP, left, right, 1, &done);                            \
        if (r != NULL || done) return r;                                                 \
        return call2(hp_fb[OP][2], left, right);                                         \
    }

BINARY(nb_add, ADD)
BINARY(nb_sub, SUB)
BINARY(nb_mul, MUL)
BINARY(nb_div, DIV)
BINARY(nb_matmul, MATMUL)
BINARY(nb_and, AND)
BINARY(nb_or, OR)
BINARY(nb_xor, XOR)

/* --- comparisons and unary operators -------------------------------------------------- */

const char *hp_cmp_names[6] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
PyObject *hp_fb_cmp[6], *hp_cnt_cmp[6];
Py_ssize_t hp_pending_cmp[6];
const char *hp_unary_names[NUNARY] = {"__neg__", "__pos__", "__abs__", "__invert__"};
static unaryfunc unary_ops[NUNARY] = {PyNumber_Negative, PyNumber_Positive, PyNumber_Absolute,
                                      PyNumber_Invert};
PyObject *hp_fb_unary[NUNARY], *hp_cnt_unary[NUNARY];
Py_ssize_t hp_pending_unary[NUNARY];

PyObject *hp_tp_richcompare(PyObject *self, PyObject *other, int op) {
    if (hp_enabled && Py_TYPE(self) == hp_Arr) {
        PyObject *x = host_data(self, NULL, NULL), *y = NULL;
        Py_ssize_t size = 0;
        if (x != NULL) {
            size = np_size(x);
            if (Py_TYPE(other) == hp_Arr) {
                y = host_data(other, NULL, NULL);
                if (y != NULL) size *= np_size(y);
            }
            else if (number_operand(other)) y = other;
        }
        if (y != NULL) {
            Py_ssize_t limit = hp_host_limit();
            if (limit == -2) return NULL;
            if (limit >= 0 && size <= limit && hp_user_frame()) {
                hp_pending_cmp[op]++;
                PyObject *result = PyObject_RichCompare(x, y, op);  /* NumPy's */
                if (result == NULL) return NULL;
                return placed(result, limit, 2, (PyObject *[]){self, other});
            }
        }
    }
    if (hp_fb_cmp[op] == NULL) Py_RETURN_NOTIMPLEMENTED;
    return call2(hp_fb_cmp[op], self, other);
}

static PyObject *unary(int op, PyObject *self) {
    if (hp_enabled && Py_TYPE(self) == hp_Arr) {
        PyObject *x = host_data(self, NULL, NULL);
        if (x != NULL) {
            Py_ssize_t limit = hp_host_limit();
            if (limit == -2) return NULL;
            if (limit >= 0 && hp_user_frame()) {
                hp_pending_unary[op]++;
                PyObject *result = unary_ops[op](x);  /* NumPy's */
                if (result == NULL) return NULL;
                return placed(result, limit, 1, &self);
            }
        }
    }
    return PyObject_CallOneArg(hp_fb_unary[op], self);
}

static PyObject *nb_negative(PyObject *self) { return unary(NEG, self); }
static PyObject *nb_positive(PyObject *self) { return unary(POS, self); }
static PyObject *nb_absolute(PyObject *self) { return unary(ABS, self); }
static PyObject *nb_invert(PyObject *self) { return unary(INV, self); }

/* ``ArrayBase``'s number slots (``_hostpath.c``). */
PyNumberMethods hp_number = {
    .nb_add = nb_add, .nb_subtract = nb_sub, .nb_multiply = nb_mul, .nb_true_divide = nb_div,
    .nb_inplace_add = nb_add_inplace, .nb_inplace_subtract = nb_sub_inplace,
    .nb_inplace_multiply = nb_mul_inplace, .nb_inplace_true_divide = nb_div_inplace,
    .nb_matrix_multiply = nb_matmul, .nb_inplace_matrix_multiply = nb_matmul_inplace,
    .nb_and = nb_and, .nb_or = nb_or, .nb_xor = nb_xor, .nb_inplace_and = nb_and_inplace,
    .nb_inplace_or = nb_or_inplace, .nb_inplace_xor = nb_xor_inplace,
    .nb_negative = nb_negative, .nb_positive = nb_positive, .nb_absolute = nb_absolute,
    .nb_invert = nb_invert,
};
