# numpy backend: matmul with np.matmul, convolution as im2col
# (sliding_window_view) + tensordot, the way numpy code lowers it.


def setup(params):
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    if params.get("device", "cpu") != "cpu":
        raise ValueError("numpy runs on the CPU only")
    dtype = np.dtype(params["dtype"])
    rng = np.random.default_rng(params["seed"])

    def rand(*shape):
        # Uniform in [0.5, 1.5): never zero.
        return (rng.random(shape) + 0.5).astype(dtype)

    pi = params["pi"]
    if pi == "matmul":
        n = params["matrix_size"]
        a, b = rand(n, n), rand(n, n)
        c = np.empty((n, n), dtype=dtype)

        def op():
            np.matmul(a, b, out=c)

        expected = (n, n)
        result = lambda: c
    elif pi in ("conv1d", "conv2d"):
        g = params["geometry"]
        B, H, W, C = g["batch"], g["input_height"], g["input_width"], g["input_channels"]
        KH, KW, O, s = g["filter_height"], g["filter_width"], g["output_channels"], g["strides"]
        ph, pw = g["pad_height"], g["pad_width"]
        last = params["channels_last"]
        w = rand(O, C, KH, KW)
        if last:
            x = rand(B, H, W, C)
            pad = ((0, 0), (ph, ph), (pw, pw), (0, 0))
            axes, wins = (1, 2), ([3, 4, 5], [1, 2, 3])
        else:
            x = rand(B, C, H, W)
            pad = ((0, 0), (0, 0), (ph, ph), (pw, pw))
            axes, wins = (2, 3), ([1, 4, 5], [1, 2, 3])
        out = [None]

        def op():
            xp = np.pad(x, pad) if (ph or pw) else x
            v = sliding_window_view(xp, (KH, KW), axis=axes)
            v = v[:, ::s, ::s] if last else v[:, :, ::s, ::s]
            y = np.tensordot(v, w, axes=wins)  # B, OH, OW, O
            out[0] = y if last else np.ascontiguousarray(y.transpose(0, 3, 1, 2))

        OH, OW = params["out_height"], params["out_width"]
        expected = (B, OH, OW, O) if last else (B, O, OH, OW)
        result = lambda: out[0]
    else:
        raise ValueError("numpy backend has no PI %r" % pi)

    op()
    if result().shape != expected:
        raise AssertionError("output shape %s, expected %s" % (result().shape, expected))

    versions = {"numpy": np.__version__, "blas": blas_libraries()}
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        versions["blas_build"] = "%s %s" % (deps.get("name", ""), deps.get("version", ""))
    except Exception:  # numpy < 1.25 has no dict mode
        pass
    return Bench(op, lambda: None, versions)
