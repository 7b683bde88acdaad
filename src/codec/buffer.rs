//! The byte containers of the codec: [`Buffer`] (owned bytes and an unpack
//! cursor, the Rust counterpart of `pmix_data_buffer_t`) and [`Reader`] (a
//! bounds-checked cursor over borrowed bytes).

use super::CodecError;

/// Packed bytes plus an unpack position.
///
/// Packing appends at the end; unpacking reads from the cursor forward, as
/// `pack_ptr` and `unpack_ptr` do in C. Unpacking is non-destructive: the
/// bytes stay, only the cursor moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffer {
    bytes: Vec<u8>,
    read: usize,
}

impl Buffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer::default()
    }

    /// A buffer holding `bytes`, cursor at the start (`PMIx_Data_load`).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Buffer { bytes, read: 0 }
    }

    /// Every packed byte, read or not.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes not yet unpacked.
    pub fn unread(&self) -> &[u8] {
        &self.bytes[self.read..]
    }

    /// Number of packed bytes (`bytes_used`).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True if nothing was packed.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Number of bytes not yet unpacked.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.read
    }

    /// Offset of the unpack cursor.
    pub fn read_pos(&self) -> usize {
        self.read
    }

    /// Moves the unpack cursor (clamped to the end), to unpack again.
    pub fn set_read_pos(&mut self, pos: usize) {
        self.read = pos.min(self.bytes.len());
    }

    /// Appends raw bytes, as `PMIx_Data_copy_payload` does.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// The unread bytes, leaving the buffer empty (`PMIx_Data_unload`).
    pub fn unload(&mut self) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.bytes);
        let read = std::mem::take(&mut self.read);
        bytes.drain(..read);
        bytes
    }

    /// Consumes the buffer, returning all its bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The byte vector packing appends to.
    pub(crate) fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Runs `f` on a [`Reader`] over the unread bytes and advances the
    /// cursor by what it consumed, whether it succeeded or not (as the C
    /// unpack pointer does).
    pub fn read_with<T>(&mut self, f: impl FnOnce(&mut Reader<'_>) -> T) -> T {
        let mut r = Reader::new(&self.bytes[self.read..]);
        let out = f(&mut r);
        self.read += r.pos();
        out
    }
}

impl From<Vec<u8>> for Buffer {
    fn from(bytes: Vec<u8>) -> Self {
        Buffer::from_bytes(bytes)
    }
}

/// A forward cursor over borrowed bytes. Every read checks the bounds and
/// fails with [`CodecError::ReadPastEnd`] instead of reading beyond them.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The bytes left, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// Consumes `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if n > self.remaining() {
            return Err(CodecError::ReadPastEnd);
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Consumes one byte.
    pub fn byte(&mut self) -> Result<u8, CodecError> {
        Ok(self.take(1)?[0])
    }

    /// Skips `n` bytes that were already inspected through [`Reader::rest`].
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }
}
