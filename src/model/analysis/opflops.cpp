// FLOPs and bytes of one op call from its recorded input shapes and dtypes (docs/roofline.md).
#include "opflops.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

/// One input as the trace recorded it: a tensor (dims and dtype) or something else.
struct Input {
    bool tensor = false;
    std::vector<double> dims;
    QString dtype;
    int bytesPerElement = 0;
    double elements() const
    {
        double n = 1;
        for (const double d : dims)
            n *= d;
        return n;
    }
    double bytes() const { return elements() * bytesPerElement; }
    double dim(int i) const { return i < 0 ? dims[dims.size() + size_t(i)] : dims[size_t(i)]; }
};

std::vector<Input> readInputs(const QString &shapes, const QString &types, bool *ok)
{
    std::vector<Input> out;
    const QJsonArray dims = QJsonDocument::fromJson(shapes.toUtf8()).array();
    const QJsonArray dtypes = QJsonDocument::fromJson(types.toUtf8()).array();
    *ok = !dims.isEmpty() && dims.size() == dtypes.size();
    if (!*ok)
        return out;
    for (qsizetype i = 0; i < dims.size(); ++i) {
        Input in;
        in.dtype = dtypes.at(i).toString();
        in.bytesPerElement = dtypeBytes(in.dtype);
        const QJsonArray d = dims.at(i).toArray();
        bool numbers = dims.at(i).isArray();
        for (const QJsonValue &v : d) {
            if (!v.isDouble() || v.toDouble() < 0) {
                numbers = false;
                break;
            }
            in.dims.push_back(v.toDouble());
        }
        in.tensor = numbers && in.bytesPerElement > 0;
        if (!in.tensor)
            in.dims.clear();
        out.push_back(std::move(in));
    }
    return out;
}

std::optional<RoofDtype> roofDtypeOf(const QString &dtype)
{
    if (dtype == QLatin1String("float"))
        return RoofDtype::Fp32;
    if (dtype == QLatin1String("double"))
        return RoofDtype::Fp64;
    if (dtype == QLatin1String("c10::Half"))
        return RoofDtype::Fp16;
    if (dtype == QLatin1String("c10::BFloat16"))
        return RoofDtype::Bf16;
    if (dtype.startsWith(QLatin1String("c10::Float8_")))
        return RoofDtype::Fp8;
    if (dtype == QLatin1String("signed char"))
        return RoofDtype::Int8;
    return std::nullopt;
}

/// Right-aligned broadcast of the tensors' shapes; false when two sizes differ and neither is 1.
bool broadcastShape(const std::vector<const Input *> &tensors, std::vector<double> &out)
{
    size_t rank = 0;
    for (const Input *t : tensors)
        rank = std::max(rank, t->dims.size());
    out.assign(rank, 1);
    for (const Input *t : tensors)
        for (size_t i = 0; i < t->dims.size(); ++i) {
            double &o = out[rank - t->dims.size() + i];
            const double d = t->dims[i];
            if (d == o || d == 1)
                continue;
            if (o != 1)
                return false;
            o = d;
        }
    return true;
}

double product(const std::vector<double> &dims, size_t from = 0, size_t to = size_t(-1))
{
    double n = 1;
    for (size_t i = from; i < std::min(to, dims.size()); ++i)
        n *= dims[i];
    return n;
}

/// "Concrete Inputs" as the trace writes them: one string per argument ("", "[2, 2]", "1", "True").
QStringList readConcrete(const QString &concrete)
{
    QStringList out;
    const QJsonArray values = QJsonDocument::fromJson(concrete.toUtf8()).array();
    for (const QJsonValue &v : values)
        out.append(v.toString());
    return out;
}

/// An int list argument ("[2, 2]", "2", "[2]") spread over `rank` spatial dims; "" is `fallback`.
/// False when it is none of these.
bool spatialArgument(const QString &text, size_t rank, double fallback, std::vector<double> &out)
{
    out.assign(rank, fallback);
    QString t = text.trimmed();
    if (t.isEmpty())
        return true;
    if (t.startsWith(QLatin1Char('[')) && t.endsWith(QLatin1Char(']')))
        t = t.mid(1, t.size() - 2);
    const QStringList parts = t.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.size() != 1 && size_t(parts.size()) != rank)
        return false;
    for (size_t i = 0; i < rank; ++i) {
        bool ok = false;
        const double v = parts.at(parts.size() == 1 ? 0 : qsizetype(i)).trimmed().toDouble(&ok);
        if (!ok || v < 0)
            return false;
        out[i] = v;
    }
    return true;
}

/// Where a convolution op keeps its arguments (native_functions.yaml; -1: not an argument of it).
struct ConvSignature {
    int bias, stride, padding, dilation, transposed, outputPadding, groups;
    bool alwaysTransposed;
};

std::optional<ConvSignature> convSignature(const QString &op)
{
    // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if (op == QLatin1String("convolution") || op == QLatin1String("_convolution"))
        return ConvSignature{2, 3, 4, 5, 6, 7, 8, false};
    // conv2d(input, weight, bias, stride, padding, dilation, groups)
    if (op == QLatin1String("conv1d") || op == QLatin1String("conv2d") || op == QLatin1String("conv3d"))
        return ConvSignature{2, 3, 4, 5, -1, -1, 6, false};
    // cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
    if (op == QLatin1String("cudnn_convolution"))
        return ConvSignature{-1, 3, 2, 4, -1, -1, 5, false};
    // miopen_convolution(self, weight, bias, padding, stride, dilation, groups, benchmark, deterministic)
    if (op == QLatin1String("miopen_convolution"))
        return ConvSignature{2, 4, 3, 5, -1, -1, 6, false};
    // conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)
    if (op == QLatin1String("conv_transpose1d") || op == QLatin1String("conv_transpose2d") ||
        op == QLatin1String("conv_transpose3d"))
        return ConvSignature{2, 3, 4, 7, -1, 5, 6, true};
    return std::nullopt;
}

/// Where an attention op writes is_causal in its "Concrete Inputs", by the number of its
/// arguments (the signatures changed between PyTorch releases); maskType: an int
/// custom_mask_type (0 none, 1 and 2 causal) instead of a bool.
struct CausalArgument {
    int index = -1;
    bool maskType = false;
};

CausalArgument causalArgument(const QString &op, qsizetype arguments)
{
    auto at = [&](int index, qsizetype atLeast) { return arguments >= atLeast ? CausalArgument{index, false} : CausalArgument{}; };
    // (query, key, value, attn_mask, dropout_p, is_causal, scale[, enable_gqa])
    if (op == QLatin1String("scaled_dot_product_attention"))
        return at(5, 6);
    // (query, key, value, dropout_p, is_causal, return_debug_mask, scale)
    if (op == QLatin1String("_scaled_dot_product_flash_attention"))
        return at(4, 5);
    // (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale); 2.0: (query, key, value, compute_log_sumexp, is_causal)
    if (op == QLatin1String("_scaled_dot_product_efficient_attention"))
        return arguments == 5 ? CausalArgument{4, false} : at(6, 8);
    // (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale); 2.3: (query, key, value, dropout_p, is_causal, return_debug_mask, scale)
    if (op == QLatin1String("_scaled_dot_product_cudnn_attention"))
        return arguments == 7 ? CausalArgument{4, false} : at(6, 9);
    // (query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, …)
    if (op == QLatin1String("_flash_attention_forward"))
        return at(8, 9);
    // (query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, custom_mask_type, …)
    if (op == QLatin1String("_efficient_attention_forward"))
        return arguments >= 10 ? CausalArgument{9, true} : CausalArgument{};
    // (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, …)
    if (op == QLatin1String("_scaled_dot_product_flash_attention_backward") ||
        op == QLatin1String("_flash_attention_backward"))
        return at(11, 12);
    // (grad_out_, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, scale);
    // 2.0: (grad_out_, query, key, value, out, logsumexp, is_causal, chunk_grad_outputs)
    if (op == QLatin1String("_scaled_dot_product_efficient_attention_backward"))
        return arguments == 8 ? CausalArgument{6, false} : at(11, 12);
    // (grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, scale)
    if (op == QLatin1String("_scaled_dot_product_cudnn_attention_backward"))
        return at(14, 15);
    // (grad_out_, query, key, value, bias, out, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset, custom_mask_type, …)
    if (op == QLatin1String("_efficient_attention_backward"))
        return arguments >= 15 ? CausalArgument{14, true} : CausalArgument{};
    return {};
}

enum class Family { None, Mm, Addmm, Bmm, Baddbmm, Matmul, Linear, ConvBackward, ConvBackwardOld, ConvForward,
                    Sdpa, SdpaBhnd, SdpaBackward, SdpaBackwardBhnd, LayerNorm, LayerNormBackward, RmsNorm, BatchNorm,
                    Softmax, SoftmaxBackward, Embedding, Elementwise, Fill, Copy, Reduction };

Family familyOf(const QString &op)
{
    static const QStringList elementwise = {
        QStringLiteral("add"), QStringLiteral("add_"), QStringLiteral("sub"), QStringLiteral("sub_"),
        QStringLiteral("mul"), QStringLiteral("mul_"), QStringLiteral("div"), QStringLiteral("div_"),
        QStringLiteral("maximum"), QStringLiteral("minimum"), QStringLiteral("where"), QStringLiteral("addcmul_"),
        QStringLiteral("addcdiv_"), QStringLiteral("lerp_"), QStringLiteral("relu"), QStringLiteral("relu_"),
        QStringLiteral("gelu"), QStringLiteral("silu"), QStringLiteral("silu_"), QStringLiteral("sigmoid"),
        QStringLiteral("sigmoid_"), QStringLiteral("tanh"), QStringLiteral("tanh_"), QStringLiteral("neg"),
        QStringLiteral("exp"), QStringLiteral("exp_"), QStringLiteral("log"), QStringLiteral("rsqrt"),
        QStringLiteral("sqrt"), QStringLiteral("abs"), QStringLiteral("reciprocal"), QStringLiteral("erf"),
        QStringLiteral("pow"), QStringLiteral("clamp"), QStringLiteral("clamp_"), QStringLiteral("clamp_min"),
        QStringLiteral("clamp_min_"), QStringLiteral("hardtanh"), QStringLiteral("hardtanh_"),
        QStringLiteral("threshold_backward"), QStringLiteral("gelu_backward"), QStringLiteral("silu_backward"),
        QStringLiteral("sigmoid_backward"), QStringLiteral("tanh_backward"), QStringLiteral("hardtanh_backward")};
    static const QStringList reductions = {QStringLiteral("sum"), QStringLiteral("mean"), QStringLiteral("amax"),
                                           QStringLiteral("amin"), QStringLiteral("max"), QStringLiteral("min"),
                                           QStringLiteral("norm"), QStringLiteral("linalg_vector_norm"),
                                           QStringLiteral("var"), QStringLiteral("std"), QStringLiteral("var_mean"),
                                           QStringLiteral("argmax"), QStringLiteral("prod")};
    if (op == QLatin1String("mm"))
        return Family::Mm;
    if (op == QLatin1String("addmm"))
        return Family::Addmm;
    if (op == QLatin1String("bmm"))
        return Family::Bmm;
    if (op == QLatin1String("baddbmm"))
        return Family::Baddbmm;
    if (op == QLatin1String("matmul"))
        return Family::Matmul;
    if (op == QLatin1String("linear"))
        return Family::Linear;
    if (op == QLatin1String("convolution_backward"))
        return Family::ConvBackward;
    if (op == QLatin1String("cudnn_convolution_backward") || op == QLatin1String("miopen_convolution_backward"))
        return Family::ConvBackwardOld;
    if (op == QLatin1String("convolution") || op == QLatin1String("_convolution") || op == QLatin1String("conv1d") ||
        op == QLatin1String("conv2d") || op == QLatin1String("conv3d") || op == QLatin1String("cudnn_convolution") ||
        op == QLatin1String("miopen_convolution") || op == QLatin1String("conv_transpose2d"))
        return Family::ConvForward;
    if (op == QLatin1String("scaled_dot_product_attention") || op == QLatin1String("_scaled_dot_product_flash_attention") ||
        op == QLatin1String("_scaled_dot_product_efficient_attention") ||
        op == QLatin1String("_scaled_dot_product_cudnn_attention"))
        return Family::Sdpa;
    if (op == QLatin1String("_flash_attention_forward") || op == QLatin1String("_efficient_attention_forward"))
        return Family::SdpaBhnd;
    if (op == QLatin1String("_scaled_dot_product_flash_attention_backward") ||
        op == QLatin1String("_scaled_dot_product_efficient_attention_backward") ||
        op == QLatin1String("_scaled_dot_product_cudnn_attention_backward"))
        return Family::SdpaBackward;
    if (op == QLatin1String("_flash_attention_backward") || op == QLatin1String("_efficient_attention_backward"))
        return Family::SdpaBackwardBhnd;
    if (op == QLatin1String("layer_norm") || op == QLatin1String("native_layer_norm"))
        return Family::LayerNorm;
    if (op == QLatin1String("native_layer_norm_backward"))
        return Family::LayerNormBackward;
    if (op == QLatin1String("rms_norm") || op == QLatin1String("_fused_rms_norm"))
        return Family::RmsNorm;
    if (op == QLatin1String("batch_norm") || op == QLatin1String("native_batch_norm") ||
        op == QLatin1String("cudnn_batch_norm") || op == QLatin1String("miopen_batch_norm") ||
        op == QLatin1String("_batch_norm_impl_index"))
        return Family::BatchNorm;
    if (op == QLatin1String("softmax") || op == QLatin1String("_softmax") || op == QLatin1String("log_softmax") ||
        op == QLatin1String("_log_softmax"))
        return Family::Softmax;
    if (op == QLatin1String("_softmax_backward_data") || op == QLatin1String("_log_softmax_backward_data"))
        return Family::SoftmaxBackward;
    if (op == QLatin1String("embedding"))
        return Family::Embedding;
    if (op == QLatin1String("fill_") || op == QLatin1String("zero_"))
        return Family::Fill;
    if (op == QLatin1String("copy_"))
        return Family::Copy;
    if (elementwise.contains(op))
        return Family::Elementwise;
    if (reductions.contains(op))
        return Family::Reduction;
    return Family::None;
}

/// The cost of one call for one "Input type" list and one "Concrete Inputs" list (empty: none).
OpCost costOnce(Family family, const QString &op, const QString &shapes, const QString &types, const QString &concrete)
{
    OpCost c;
    bool ok = false;
    const std::vector<Input> in = readInputs(shapes, types, &ok);
    if (!ok) {
        c.reason = QStringLiteral("Input Dims and Input type do not pair up");
        return c;
    }
    auto tensor = [&](size_t i) -> const Input * { return i < in.size() && in[i].tensor ? &in[i] : nullptr; };
    auto rank = [&](size_t i, size_t r) { return tensor(i) && tensor(i)->dims.size() == r; };
    auto fail = [&](const QString &why) {
        c.reason = why;
        return c;
    };
    auto done = [&](const Input &math, double flops, double bytes, const QString &formula) {
        c.modelled = true;
        c.flops = flops;
        c.bytes = bytes;
        c.dtypeName = math.dtype;
        c.dtype = roofDtypeOf(math.dtype);
        c.formula = formula;
        return c;
    };
    const QString shapesMismatch = QStringLiteral("the recorded shapes do not fit the op's formula");

    switch (family) {
    case Family::Mm:
    case Family::Addmm: {
        const size_t a = family == Family::Mm ? 0 : 1;
        if (!rank(a, 2) || !rank(a + 1, 2) || in[a].dims[1] != in[a + 1].dims[0])
            return fail(shapesMismatch);
        const double m = in[a].dims[0], k = in[a].dims[1], n = in[a + 1].dims[1];
        const int b = in[a].bytesPerElement;
        double flops = 2 * m * n * k, bytes = (m * k + n * k + m * n) * b;
        if (family == Family::Addmm && tensor(0)) {
            flops += m * n;
            bytes += in[0].bytes();
        }
        return done(in[a], flops, bytes, QStringLiteral("GEMM"));
    }
    case Family::Bmm:
    case Family::Baddbmm: {
        const size_t a = family == Family::Bmm ? 0 : 1;
        if (!rank(a, 3) || !rank(a + 1, 3) || in[a].dims[2] != in[a + 1].dims[1] || in[a].dims[0] != in[a + 1].dims[0])
            return fail(shapesMismatch);
        const double batch = in[a].dims[0], m = in[a].dims[1], k = in[a].dims[2], n = in[a + 1].dims[2];
        const int b = in[a].bytesPerElement;
        double flops = 2 * batch * m * n * k, bytes = batch * (m * k + n * k + m * n) * b;
        if (family == Family::Baddbmm && tensor(0)) {
            flops += batch * m * n;
            bytes += in[0].bytes();
        }
        return done(in[a], flops, bytes, QStringLiteral("batched GEMM"));
    }
    case Family::Matmul: {
        const Input *x = tensor(0), *y = tensor(1);
        if (!x || !y || x->dims.empty() || y->dims.empty())
            return fail(shapesMismatch);
        // torch.matmul: a vector is a matrix of one row (left) or one column (right); the dims
        // before the last two broadcast as a batch.
        const double k = x->dim(-1);
        const double ky = y->dims.size() == 1 ? y->dim(0) : y->dim(-2);
        if (k != ky)
            return fail(shapesMismatch);
        const double m = x->dims.size() == 1 ? 1 : x->dim(-2);
        const double n = y->dims.size() == 1 ? 1 : y->dim(-1);
        Input xb = *x, yb = *y;
        xb.dims.resize(x->dims.size() > 2 ? x->dims.size() - 2 : 0);
        yb.dims.resize(y->dims.size() > 2 ? y->dims.size() - 2 : 0);
        std::vector<double> batchDims;
        if (!broadcastShape({&xb, &yb}, batchDims))
            return fail(shapesMismatch);
        const double batch = product(batchDims);
        const double flops = 2 * batch * m * n * k;
        const double bytes = x->bytes() + y->bytes() + batch * m * n * x->bytesPerElement;
        return done(*x, flops, bytes, QStringLiteral("GEMM"));
    }
    case Family::Linear: {
        const Input *x = tensor(0), *w = tensor(1);
        if (!x || !w || x->dims.empty() || w->dims.size() != 2 || x->dim(-1) != w->dims[1])
            return fail(shapesMismatch);
        const double k = x->dim(-1), n = w->dims[0], m = x->elements() / std::max(1.0, k);
        double flops = 2 * m * n * k, bytes = x->bytes() + w->bytes() + m * n * x->bytesPerElement;
        if (const Input *bias = tensor(2)) {
            flops += m * n;
            bytes += bias->bytes();
        }
        return done(*x, flops, bytes, QStringLiteral("GEMM"));
    }
    case Family::ConvBackward:
    case Family::ConvBackwardOld: {
        // convolution_backward(grad_output, input, weight, …); the old cudnn/miopen ops take
        // (input, grad_output, weight, …).
        const size_t go = family == Family::ConvBackward ? 0 : 1, x = family == Family::ConvBackward ? 1 : 0;
        const Input *gradOut = tensor(go), *input = tensor(x), *weight = tensor(2);
        if (!gradOut || !input || !weight || weight->dims.size() < 3 || gradOut->dims.size() != weight->dims.size() ||
            input->dims.size() != weight->dims.size())
            return fail(shapesMismatch);
        const double perOutput = 2 * product(weight->dims, 1);
        const double flops = 2 * gradOut->elements() * perOutput;  // input gradient + weight gradient
        const double bytes = 2 * (gradOut->bytes() + input->bytes() + weight->bytes());
        return done(*input, flops, bytes, QStringLiteral("convolution backward"));
    }
    case Family::ConvForward: {
        const std::optional<ConvSignature> sig = convSignature(op);
        const Input *input = tensor(0), *weight = tensor(1);
        if (!sig || !input || !weight || weight->dims.size() < 3 || input->dims.size() != weight->dims.size())
            return fail(shapesMismatch);
        if (concrete.isEmpty())
            return fail(QStringLiteral("no Concrete Inputs recorded: stride, padding and dilation, which give the "
                                       "output size, are not in Input Dims"));
        const QStringList args = readConcrete(concrete);
        auto arg = [&](int i) { return i >= 0 && i < args.size() ? args.at(i) : QString(); };
        const QString signatureMismatch =
            QStringLiteral("its Concrete Inputs do not fit the op's arguments (stride, padding, dilation, groups)");
        if (args.size() <= sig->groups)
            return fail(signatureMismatch);
        const size_t spatial = input->dims.size() - 2;
        std::vector<double> stride, padding, dilation, outputPadding;
        bool samePadding = false;
        const QString paddingText = arg(sig->padding).trimmed();
        if (paddingText == QLatin1String("same") || paddingText == QLatin1String("valid")) {
            samePadding = paddingText == QLatin1String("same");  // conv2d(…, padding="same"): stride 1
            padding.assign(spatial, 0);
        } else if (!spatialArgument(paddingText, spatial, 0, padding)) {
            return fail(signatureMismatch);
        }
        if (!spatialArgument(arg(sig->stride), spatial, 1, stride) ||
            !spatialArgument(arg(sig->dilation), spatial, 1, dilation) ||
            !spatialArgument(arg(sig->outputPadding), spatial, 0, outputPadding))
            return fail(signatureMismatch);
        bool groupsOk = false;
        const QString groupsText = arg(sig->groups).trimmed();
        const double groups = groupsText.isEmpty() ? 1.0 : groupsText.toDouble(&groupsOk);
        if ((!groupsText.isEmpty() && !groupsOk) || groups < 1)
            return fail(signatureMismatch);
        bool transposed = sig->alwaysTransposed;
        if (sig->transposed >= 0) {
            const QString t = arg(sig->transposed).trimmed();
            if (t != QLatin1String("True") && t != QLatin1String("False"))
                return fail(signatureMismatch);
            transposed = t == QLatin1String("True");
        }
        // Channels: weight is (out, in / groups, k…), transposed (in, out / groups, k…).
        if (transposed ? weight->dims[0] != input->dims[1] : weight->dims[1] * groups != input->dims[1])
            return fail(shapesMismatch);
        std::vector<double> out = {input->dims[0], transposed ? weight->dims[1] * groups : weight->dims[0]};
        for (size_t i = 0; i < spatial; ++i) {
            const double in = input->dims[2 + i], k = weight->dims[2 + i];
            const double size = samePadding ? in
                                : transposed ? (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) +
                                                   outputPadding[i] + 1
                                             : std::floor((in + 2 * padding[i] - dilation[i] * (k - 1) - 1) /
                                                          std::max(1.0, stride[i])) + 1;
            if (!(size >= 1))
                return fail(shapesMismatch);
            out.push_back(size);
        }
        const double outElements = product(out);
        // Each output (transposed: each input) element is a dot product over weight's in / groups × k… .
        const double perElement = 2 * product(weight->dims, 1);
        double flops = (transposed ? input->elements() : outElements) * perElement;
        double bytes = input->bytes() + weight->bytes() + outElements * input->bytesPerElement;
        if (const Input *bias = sig->bias >= 0 ? tensor(size_t(sig->bias)) : nullptr) {
            flops += outElements;
            bytes += bias->bytes();
        }
        return done(*input, flops, bytes,
                    transposed ? QStringLiteral("transposed convolution") : QStringLiteral("convolution"));
    }
    case Family::Sdpa:
    case Family::SdpaBhnd:
    case Family::SdpaBackward:
    case Family::SdpaBackwardBhnd: {
        const bool backward = family == Family::SdpaBackward || family == Family::SdpaBackwardBhnd;
        const size_t first = backward ? 1 : 0;  // backward: (grad_out, q, k, v, out, …)
        if (!rank(first, 4) || !rank(first + 1, 4) || !rank(first + 2, 4))
            return fail(shapesMismatch);
        // (B, H, N, d), or (B, N, H, d) for the flash/efficient kernels' own ops.
        const bool bnhd = family == Family::SdpaBhnd || family == Family::SdpaBackwardBhnd;
        const Input &q = in[first], &k = in[first + 1], &v = in[first + 2];
        const double batch = q.dims[0];
        const double heads = bnhd ? q.dims[2] : q.dims[1], nq = bnhd ? q.dims[1] : q.dims[2];
        const double nkv = bnhd ? k.dims[1] : k.dims[2];
        const double d = q.dims[3], dv = v.dims[3];
        const double outElements = batch * heads * nq * dv;
        // A causal mask skips the upper triangle of QKᵀ: half the products (Nq = Nkv only; with
        // Nq ≠ Nkv the mask's alignment decides the count). Without Concrete Inputs: non-causal.
        bool causal = false;
        QString causalNote = QStringLiteral(", is_causal not recorded: costed as non-causal");
        if (!concrete.isEmpty()) {
            const QStringList args = readConcrete(concrete);
            const CausalArgument where = causalArgument(op, args.size());
            const QString value = where.index >= 0 ? args.at(where.index).trimmed() : QString();
            bool numberOk = false;
            const int maskType = where.maskType ? value.toInt(&numberOk) : 0;
            if (where.index < 0 || (where.maskType ? !numberOk
                                                   : value != QLatin1String("True") && value != QLatin1String("False")))
                return fail(QStringLiteral("its Concrete Inputs do not fit the op's arguments (is_causal)"));
            causal = where.maskType ? maskType != 0 : value == QLatin1String("True");
            causalNote = causal ? QStringLiteral(", causal") : QString();
            if (causal && nq != nkv)
                return fail(QStringLiteral("causal attention with %1 queries and %2 keys: the mask's alignment decides "
                                           "the FLOPs").arg(nq).arg(nkv));
        }
        const double maskShare = causal ? 0.5 : 1.0;
        if (!backward) {
            const double flops = 2 * batch * heads * nq * nkv * (d + dv) * maskShare;
            const double bytes = q.bytes() + k.bytes() + v.bytes() + outElements * q.bytesPerElement;
            return done(q, flops, bytes, QStringLiteral("attention") + causalNote);
        }
        // Recompute QKᵀ, then dV, dP, dQ, dK: five matrix products.
        const double flops = 2 * batch * heads * nq * nkv * (3 * d + 2 * dv) * maskShare;
        const double bytes = 2 * (q.bytes() + k.bytes() + v.bytes()) + 2 * outElements * q.bytesPerElement;
        return done(q, flops, bytes, QStringLiteral("attention backward") + causalNote);
    }
    case Family::LayerNorm:
    case Family::RmsNorm: {
        const Input *x = tensor(0);
        if (!x)
            return fail(shapesMismatch);
        const double n = x->elements();
        double bytes = 2 * x->bytes();
        for (size_t i = 2; i <= (family == Family::LayerNorm ? 3u : 2u); ++i)
            if (const Input *p = tensor(i))
                bytes += p->bytes();
        return done(*x, (family == Family::LayerNorm ? 5 : 4) * n, bytes,
                    family == Family::LayerNorm ? QStringLiteral("layer norm") : QStringLiteral("RMS norm"));
    }
    case Family::LayerNormBackward: {
        // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
        const Input *gradOut = tensor(0), *x = tensor(1);
        if (!gradOut || !x)
            return fail(shapesMismatch);
        double bytes = gradOut->bytes() + 2 * x->bytes();  // read grad_out and input, write grad_input
        for (size_t i = 3; i <= 6; ++i)
            if (const Input *p = tensor(i))
                bytes += i >= 5 ? 2 * p->bytes() : p->bytes();  // weight, bias: read and their gradients written
        return done(*x, 8 * x->elements(), bytes, QStringLiteral("layer norm backward"));
    }
    case Family::BatchNorm: {
        const Input *x = tensor(0);
        if (!x)
            return fail(shapesMismatch);
        double bytes = 2 * x->bytes();
        for (size_t i = 1; i <= 4; ++i)
            if (const Input *p = tensor(i))
                bytes += p->bytes();
        return done(*x, 5 * x->elements(), bytes, QStringLiteral("batch norm"));
    }
    case Family::Softmax: {
        const Input *x = tensor(0);
        if (!x)
            return fail(shapesMismatch);
        return done(*x, 3 * x->elements(), 2 * x->bytes(), QStringLiteral("softmax"));
    }
    case Family::SoftmaxBackward: {
        const Input *gradOut = tensor(0), *out = tensor(1);
        if (!gradOut || !out)
            return fail(shapesMismatch);
        return done(*gradOut, 3 * gradOut->elements(), gradOut->bytes() + out->bytes() + gradOut->bytes(),
                    QStringLiteral("softmax backward"));
    }
    case Family::Embedding: {
        const Input *weight = tensor(0), *indices = tensor(1);
        if (!weight || !indices || weight->dims.size() != 2)
            return fail(shapesMismatch);
        const double rows = indices->elements(), width = weight->dims[1];
        return done(*weight, 0, 2 * rows * width * weight->bytesPerElement + indices->bytes(),
                    QStringLiteral("embedding"));
    }
    case Family::Fill: {
        const Input *self = tensor(0);
        if (!self)
            return fail(shapesMismatch);
        return done(*self, 0, self->bytes(), QStringLiteral("fill"));
    }
    case Family::Copy: {
        const Input *self = tensor(0), *src = tensor(1);
        if (!self || !src)
            return fail(shapesMismatch);
        return done(*self, 0, self->bytes() + src->bytes(), QStringLiteral("copy"));
    }
    case Family::Elementwise: {
        std::vector<const Input *> tensors;
        for (const Input &i : in)
            if (i.tensor)
                tensors.push_back(&i);
        if (tensors.empty())
            return fail(shapesMismatch);
        std::vector<double> outDims;
        if (!broadcastShape(tensors, outDims))
            return fail(shapesMismatch);
        const double outElements = product(outDims);
        double bytes = outElements * tensors.front()->bytesPerElement;
        for (const Input *t : tensors)
            bytes += t->bytes();
        return done(*tensors.front(), outElements, bytes, QStringLiteral("elementwise"));
    }
    case Family::Reduction: {
        const Input *x = tensor(0);
        if (!x)
            return fail(shapesMismatch);
        return done(*x, x->elements(), x->bytes(), QStringLiteral("reduction"));
    }
    case Family::None:
        break;
    }
    return fail(QStringLiteral("no cost model for this op"));
}

} // namespace

int dtypeBytes(const QString &dtype)
{
    if (dtype == QLatin1String("float") || dtype == QLatin1String("int") || dtype == QLatin1String("unsigned int"))
        return 4;
    if (dtype == QLatin1String("double") || dtype == QLatin1String("long int") || dtype == QLatin1String("long") ||
        dtype == QLatin1String("c10::complex<float>"))
        return 8;
    if (dtype == QLatin1String("c10::Half") || dtype == QLatin1String("c10::BFloat16") ||
        dtype == QLatin1String("short int") || dtype == QLatin1String("short"))
        return 2;
    if (dtype == QLatin1String("signed char") || dtype == QLatin1String("unsigned char") ||
        dtype == QLatin1String("bool") || dtype.startsWith(QLatin1String("c10::Float8_")))
        return 1;
    if (dtype == QLatin1String("c10::complex<double>"))
        return 16;
    return 0;
}

OpCost opCost(const QString &name, const std::optional<QString> &inputShapes, const QStringList &inputTypes,
              const QStringList &concreteInputs)
{
    OpCost c;
    const QString op = name.startsWith(QLatin1String("aten::")) ? name.mid(6) : QString();
    const Family family = op.isEmpty() ? Family::None : familyOf(op);
    if (family == Family::None) {
        c.reason = QStringLiteral("no cost model for this op (compiled and Triton kernels have none)");
        return c;
    }
    if (!inputShapes) {
        c.reason = QStringLiteral("no input shapes (record_shapes was off)");
        return c;
    }
    if (inputTypes.isEmpty()) {
        c.reason = QStringLiteral("no input dtypes recorded (\"Input type\")");
        return c;
    }
    // Each dtype list with each list of concrete inputs: they must cost the same.
    const QStringList concretes = concreteInputs.isEmpty() ? QStringList{QString()} : concreteInputs;
    bool first = true;
    for (const QString &types : inputTypes)
        for (const QString &concrete : concretes) {
            const OpCost one = costOnce(family, op, *inputShapes, types, concrete);
            if (!one.modelled)
                return one;
            if (first) {
                c = one;
                first = false;
                continue;
            }
            if (one.flops != c.flops || one.bytes != c.bytes || one.dtype != c.dtype) {
                OpCost mixed;
                mixed.reason = inputTypes.size() > 1
                                   ? QStringLiteral("its calls of these shapes ran with different dtypes (%1)")
                                         .arg(inputTypes.join(QLatin1String(" / ")))
                                   : QStringLiteral("its calls of these shapes ran with arguments that cost "
                                                    "differently (Concrete Inputs %1)")
                                         .arg(concreteInputs.join(QLatin1String(" / ")));
                return mixed;
            }
        }
    return c;
}

} // namespace goblin
