//! Calling any RPC as bytes, and listing what a server serves by reflection: what a
//! test needs to walk every RPC of the served contract without a typed client for each.

use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use futures::StreamExt;
use prost::Message;
use prost::bytes::{Buf, BufMut};
use prost_types::FileDescriptorProto;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

/// One RPC a server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rpc {
    /// `/<package>.<Service>/<Method>`.
    pub path: String,
    /// A server stream.
    pub streaming: bool,
}

/// What one call came back with: its code, and every byte the caller saw (the messages
/// and the status message), to search for names that must not be there.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub code: Code,
    pub seen: Vec<u8>,
}

impl Outcome {
    fn from_status(status: &Status, mut seen: Vec<u8>) -> Self {
        seen.extend_from_slice(status.message().as_bytes());
        Outcome {
            code: status.code(),
            seen,
        }
    }

    /// Whether `needle` appears anywhere the caller could read.
    pub fn shows(&self, needle: &str) -> bool {
        self.seen
            .windows(needle.len())
            .any(|window| window == needle.as_bytes())
    }
}

/// Calls `rpc` with the encoded `request` and `token` as `authorization: Bearer`.
pub async fn call(channel: &Channel, rpc: &Rpc, request: Vec<u8>, token: Option<&str>) -> Outcome {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    if let Err(error) = grpc.ready().await {
        return Outcome::from_status(&Status::unavailable(error.to_string()), Vec::new());
    }
    let mut message = tonic::Request::new(request);
    message.set_timeout(Duration::from_secs(30));
    if let Some(value) = token.and_then(|t| format!("Bearer {t}").parse().ok()) {
        message.metadata_mut().insert("authorization", value);
    }
    let Ok(path) = rpc.path.parse() else {
        return Outcome::from_status(&Status::internal("bad path"), Vec::new());
    };
    if !rpc.streaming {
        return match grpc.unary(message, path, Bytes).await {
            Ok(response) => Outcome {
                code: Code::Ok,
                seen: response.into_inner(),
            },
            Err(status) => Outcome::from_status(&status, Vec::new()),
        };
    }
    let mut stream = match grpc.server_streaming(message, path, Bytes).await {
        Ok(response) => response.into_inner(),
        Err(status) => return Outcome::from_status(&status, Vec::new()),
    };
    let mut seen = Vec::new();
    // A stream that answered and then stays quiet is an open watch (`WatchPackages`
    // streams until a change): its outcome is what it sent.
    let quiet = Duration::from_secs(3);
    loop {
        let item = if seen.is_empty() {
            stream.next().await
        } else {
            match tokio::time::timeout(quiet, stream.next()).await {
                Ok(item) => item,
                Err(_) => break,
            }
        };
        match item {
            Some(Ok(bytes)) => seen.extend(bytes),
            Some(Err(status)) => return Outcome::from_status(&status, seen),
            None => break,
        }
    }
    Outcome {
        code: Code::Ok,
        seen,
    }
}

/// Every RPC of every `neuralis.*` service the server at `channel` lists by reflection.
pub async fn served(channel: &Channel) -> Result<Vec<Rpc>> {
    let mut rpcs = Vec::new();
    for service in reflect(channel, MessageRequest::ListServices(String::new()))
        .await?
        .into_iter()
        .filter_map(|answer| match answer {
            MessageResponse::ListServicesResponse(list) => Some(list.service),
            _ => None,
        })
        .flatten()
        .map(|service| service.name)
        .filter(|name| name.starts_with("neuralis."))
    {
        let files = reflect(
            channel,
            MessageRequest::FileContainingSymbol(service.clone()),
        )
        .await?
        .into_iter()
        .filter_map(|answer| match answer {
            MessageResponse::FileDescriptorResponse(files) => Some(files.file_descriptor_proto),
            _ => None,
        })
        .flatten();
        for bytes in files {
            let file = FileDescriptorProto::decode(bytes.as_slice())?;
            rpcs.extend(methods_of(&file, &service));
        }
    }
    rpcs.sort_by(|a, b| a.path.cmp(&b.path));
    rpcs.dedup();
    Ok(rpcs)
}

/// The RPCs of `service` (fully qualified) in `file`.
pub fn methods_of(file: &FileDescriptorProto, service: &str) -> Vec<Rpc> {
    file.service
        .iter()
        .filter(|s| format!("{}.{}", file.package(), s.name()) == service)
        .flat_map(|s| &s.method)
        .map(|method| Rpc {
            path: format!("/{service}/{}", method.name()),
            streaming: method.server_streaming(),
        })
        .collect()
}

async fn reflect(channel: &Channel, request: MessageRequest) -> Result<Vec<MessageResponse>> {
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    };
    let mut answers = ServerReflectionClient::new(channel.clone())
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .context("reflection")?
        .into_inner();
    let Some(answer) = answers.next().await else {
        bail!("no reflection answer");
    };
    let answer = answer?
        .message_response
        .ok_or_else(|| anyhow!("empty reflection answer"))?;
    if let MessageResponse::ErrorResponse(error) = &answer {
        bail!("reflection error: {}", error.error_message);
    }
    Ok(vec![answer])
}

/// Passes messages through as their encoded bytes.
#[derive(Debug, Clone, Copy, Default)]
struct Bytes;

impl Codec for Bytes {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Bytes;
    type Decoder = Bytes;

    fn encoder(&mut self) -> Self::Encoder {
        Bytes
    }

    fn decoder(&mut self) -> Self::Decoder {
        Bytes
    }
}

impl Encoder for Bytes {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Bytes {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let bytes = src.copy_to_bytes(src.remaining());
        Ok(Some(bytes.to_vec()))
    }
}
