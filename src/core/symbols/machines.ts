// ELF e_machine values the core tells apart: the code the disassembly decodes and the PLT's
// reading, the placement of a stripped program, the Thumb bit of ARM symbols.

export const EM_386 = 3;
export const EM_ARM = 40;
export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;
