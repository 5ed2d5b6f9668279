// RUN: tfrt_translate -mlir-to-bef %s | od -A n -t x1 -N 3 | FileCheck %s

// Even an empty module starts with the magic bytes and version 1.

// CHECK: 0b ef 01
