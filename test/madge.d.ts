// The part of madge's API the architecture test uses (madge ships no types).
declare module 'madge' {
  interface MadgeResult {
    circular(): string[][];
    obj(): Record<string, string[]>;
  }
  export default function madge(
    path: string,
    config?: { fileExtensions?: string[]; tsConfig?: string },
  ): Promise<MadgeResult>;
}
