/// What libyaml's reader would say of a text, found without it. The reader decodes, checks and
/// copies one character at a time; this walks sixteen bytes at a time and stops at the first
/// character the reader would refuse. `LibYAMLEventReader` puts a text that passes straight into
/// libyaml's character buffer, where the libyaml linked is the one that was checked.
enum YAMLReaderCheck {
    /// The number of characters in `text` when the reader takes every one: well-formed UTF-8
    /// (`SourceTextCheck.sequenceLength`) of YAML's printable set (tab, line feed, carriage
    /// return, U+0020-U+007E, U+0085, U+00A0 and up but U+FFFE and U+FFFF). Nil otherwise: the
    /// reader then reads the text and reports the problem itself.
    static func characterCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = text.baseAddress else { return 0 }
        let count = text.count
        var index = 0
        var characters = 0
        while index < count {
            if index + 16 <= count {
                let flags = unsafeBitCast(
                    flaggedLanes(UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self)), to: SIMD2<UInt64>.self)
                let low = UInt64(littleEndian: flags[0])
                let high = UInt64(littleEndian: flags[1])
                // The bytes before the first flagged one are printable ASCII, one character each.
                let plain = (low != 0 ? low.trailingZeroBitCount : 64 + high.trailingZeroBitCount) / 8
                index += plain
                characters += plain
                if plain == 16 { continue }
            }
            let length = characterLength(text, at: index)
            guard length > 0 else { return nil }
            index += length
            characters += 1
        }
        return characters
    }

    /// The length in bytes of the character at `index`, or 0 when the reader refuses it.
    static func characterLength(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = text[index]
        if lead < 0x80 {
            return lead >= 0x20 && lead != 0x7F || lead == 0x09 || lead == 0x0A || lead == 0x0D ? 1 : 0
        }
        let length = SourceTextCheck.sequenceLength(text, at: index)
        guard length > 0 else { return 0 }
        let second = text[index + 1]
        if lead == 0xC2 && second < 0xA0 && second != 0x85 { return 0 }  // C1 controls but NEL
        if lead == 0xEF && second == 0xBF && text[index + 2] >= 0xBE { return 0 }  // U+FFFE, U+FFFF
        return length
    }

    /// The high bit of each byte lane set where the byte is not printable ASCII, a tab or a line
    /// break: a control character, DEL, or part of a multi-byte character. Wrapping arithmetic and
    /// bit operations only ("has less than" and "has zero byte" from Bit Twiddling Hacks, lane by
    /// lane, so every flag is exact), which compile to a few SSE2 or NEON instructions.
    @inline(__always)
    static func flaggedLanes(_ bytes: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let control =
            (bytes &- SIMD16(repeating: 0x20)) & ~bytes
            & ~(lanes(of: bytes, equalTo: 0x09) | lanes(of: bytes, equalTo: 0x0A) | lanes(of: bytes, equalTo: 0x0D))
        return (control | lanes(of: bytes, equalTo: 0x7F) | bytes) & SIMD16(repeating: 0x80)
    }

    /// The high bit set in the lanes of `bytes` that equal `value`.
    @inline(__always)
    private static func lanes(of bytes: SIMD16<UInt8>, equalTo value: UInt8) -> SIMD16<UInt8> {
        let difference = bytes ^ SIMD16(repeating: value)
        return (difference &- SIMD16(repeating: 1)) & ~difference
    }
}
