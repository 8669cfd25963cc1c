//! Drive a provider client through its blocking or its async face.
#![allow(dead_code)]

use golem_core::model::{AsyncModel, BoxError, Delta, Model, ModelError, Request, Response};
use golem_providers::openai::{Config, Preset};
use golem_providers::transport::TransportConfig;
use golem_providers::OpenAi;
use std::time::Duration;

/// The key the loopback clients use; tests search every output for it.
pub const KEY: &str = "sk-loopback-secret-4242";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    Blocking,
    Async,
}

pub const FACES: [Face; 2] = [Face::Blocking, Face::Async];

/// An OpenAI client on `url` (a loopback server) with its own transports.
pub fn openai(url: &str) -> OpenAi {
    let config =
        Config::builder(Preset::openai(), "gpt-test").base_url(format!("{url}/v1")).api_key(KEY).build().unwrap();
    OpenAi::new(config).transport_config(TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

pub fn generate<M: Model + AsyncModel>(face: Face, model: &M, request: &Request) -> Result<Response, ModelError> {
    match face {
        Face::Blocking => Model::generate(model.as_blocking().unwrap(), request),
        Face::Async => futures_lite::future::block_on(model.as_async().unwrap().generate_async(request)),
    }
}

pub fn stream<M: Model + AsyncModel>(
    face: Face,
    model: &M,
    request: &Request,
    mut on_delta: impl FnMut(Delta) -> Result<(), BoxError> + Send,
) -> Result<Response, ModelError> {
    let mut sink = |delta: Delta| on_delta(delta);
    match face {
        Face::Blocking => model.as_blocking().unwrap().as_streaming().unwrap().stream(request, &mut sink),
        Face::Async => futures_lite::future::block_on(
            model.as_async().unwrap().as_streaming().unwrap().stream_async(request, &mut sink),
        ),
    }
}

/// Every delta of a stream, with the response.
pub fn collect<M: Model + AsyncModel>(
    face: Face,
    model: &M,
    request: &Request,
) -> (Vec<Delta>, Result<Response, ModelError>) {
    let mut deltas = Vec::new();
    let result = stream(face, model, request, |d| {
        deltas.push(d);
        Ok(())
    });
    (deltas, result)
}
