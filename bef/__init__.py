"""BEF, the binary executable format: encoding, writer, reader, disassembler."""
