/**
 * The image formats and their default qualities, apart from the encoder (format.ts loads sharp):
 * the option table, plans and the CLI name them without loading a native module.
 */
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'avif'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
export type LossyFormat = Exclude<ImageFormat, 'png'>;

/**
 * sharp's own defaults: AVIF's 50 looks about like JPEG's 80 (AVIF's scale is steeper), so each
 * format's default gives a similar picture.
 */
export const DEFAULT_QUALITY: Readonly<Record<LossyFormat, number>> = { jpeg: 80, webp: 80, avif: 50 };
