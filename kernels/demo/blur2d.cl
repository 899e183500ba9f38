/* blur2d.cl: 3x3 box blur of a w x h float image, row-major. Pixels outside
 * the image take the value of the nearest edge pixel (clamped), so every
 * output is the mean of nine inputs. The global size is rounded up to the
 * work-group, so work-items outside the image return at once. */
__kernel void blur2d(__global const float *in, __global float *out, int w,
                     int h)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        int row = clamp(y + dy, 0, h - 1) * w;
        for (int dx = -1; dx <= 1; dx++)
            sum += in[row + clamp(x + dx, 0, w - 1)];
    }
    out[y * w + x] = sum / 9.0f;
}
