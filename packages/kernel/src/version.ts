/** Version of the kernel API that plugins declare ranges against (kept equal to package.json by a test). */
export const KERNEL_VERSION = '0.1.0';
