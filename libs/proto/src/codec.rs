//! The codec every generated server and client uses: prost's encoding, and a decoder
//! that answers a message that does not decode (bad wire data, a string that is not
//! UTF-8) with INVALID_ARGUMENT naming the field, where tonic's own answers INTERNAL.
//! The caller sent it; it is not our defect (DESIGN.md section 6).

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder};
use tonic_prost::ProstCodec;

/// Prost's encoder, the decoder below.
#[derive(Debug, Clone)]
pub struct NeuralisCodec<T, U> {
    prost: ProstCodec<T, U>,
}

impl<T, U> Default for NeuralisCodec<T, U> {
    fn default() -> Self {
        NeuralisCodec {
            prost: ProstCodec::default(),
        }
    }
}

impl<T, U> Codec for NeuralisCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = <ProstCodec<T, U> as Codec>::Encoder;
    type Decoder = InvalidArgumentDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.prost.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        InvalidArgumentDecoder(PhantomData)
    }
}

/// Decodes with prost; a failure is INVALID_ARGUMENT naming the field.
#[derive(Debug)]
pub struct InvalidArgumentDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for InvalidArgumentDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf)
            .map(Some)
            .map_err(|error| undecodable(&error))
    }
}

/// `<field path>: does not decode (<what>)`, the `field: message` shape every service's
/// INVALID_ARGUMENT uses. Prost names the fields only in its message, innermost first
/// (`failed to decode Protobuf message: Inner.b: Outer.a: <what>`); the path is read
/// back outermost first (`a.b`), `message` when no field is named.
pub fn undecodable(error: &prost::DecodeError) -> Status {
    let text = error.to_string();
    let rest = text
        .strip_prefix("failed to decode Protobuf message: ")
        .unwrap_or(&text);
    let mut fields = Vec::new();
    let mut what = rest;
    while let Some((segment, tail)) = what.split_once(": ") {
        match segment.split_once('.') {
            Some((message, field))
                if is_identifier(message) && is_identifier(field) && !field.is_empty() =>
            {
                fields.push(field);
                what = tail;
            }
            _ => break,
        }
    }
    fields.reverse();
    let path = if fields.is_empty() {
        "message".to_owned()
    } else {
        fields.join(".")
    };
    crate::details::invalid(
        crate::details::Reason::RequestUndecodable,
        &path,
        &format!("does not decode ({what})"),
    )
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, PartialEq, prost::Message)]
    struct Inner {
        #[prost(string, tag = "1")]
        root: String,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    struct Outer {
        #[prost(message, optional, tag = "1")]
        source: Option<Inner>,
    }

    #[test]
    fn a_string_that_is_not_utf8_is_invalid_argument_naming_the_field() {
        // field 1 (source, length-delimited) holding field 1 (root) = 0xff 0xfe
        let bytes = [0x0a, 0x04, 0x0a, 0x02, 0xff, 0xfe];
        let error = Outer::decode(&bytes[..]).unwrap_err();
        let status = undecodable(&error);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            status
                .message()
                .starts_with("source.root: does not decode ("),
            "{}",
            status.message()
        );
        let field = crate::details::field_of(&status);
        assert_eq!(field.as_deref(), Some("source.root"));
        assert_eq!(
            crate::details::reason_of(&status).as_deref(),
            Some("REQUEST_UNDECODABLE")
        );
    }

    #[test]
    fn garbage_without_a_field_names_the_message() {
        let error = Outer::decode(&[0xff, 0xff, 0xff][..]).unwrap_err();
        let status = undecodable(&error);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            status.message().starts_with("message: does not decode ("),
            "{}",
            status.message()
        );
    }
}
