//! "Every RPC of every service has exactly one authorization rule ... and a test fails
//! when an RPC of the descriptor set has no row" (DESIGN.md section 5). Read from the
//! compiled descriptor set the servers serve by reflection.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use neuralis_authz::tables;
use prost::Message;
use prost_types::FileDescriptorSet;

/// Every RPC of every `neuralis.*` service: service name to method paths.
fn served_rpcs() -> BTreeMap<String, Vec<String>> {
    let set = FileDescriptorSet::decode(neuralis_proto::FILE_DESCRIPTOR_SET).unwrap();
    let mut services = BTreeMap::new();
    for file in set.file {
        let package = file.package();
        for service in &file.service {
            let name = format!("{package}.{}", service.name());
            let methods = service
                .method
                .iter()
                .map(|method| format!("/{name}/{}", method.name()))
                .collect();
            services.insert(name, methods);
        }
    }
    services
}

#[test]
fn every_served_service_has_a_table_and_every_table_a_served_service() {
    let served: Vec<String> = served_rpcs().into_keys().collect();
    let mut tabled: Vec<String> = tables::ALL.iter().map(|t| t.service.to_owned()).collect();
    tabled.sort();
    assert_eq!(tabled, served);
}

#[test]
fn every_rpc_has_exactly_one_row_and_every_row_names_an_rpc() {
    let served = served_rpcs();
    for table in tables::ALL {
        let methods = &served[table.service];
        for method in methods {
            let rows = table.rows.iter().filter(|row| row.method == method).count();
            assert_eq!(rows, 1, "{method}: {rows} rows (exactly one is required)");
        }
        for row in table.rows {
            assert!(
                methods.iter().any(|method| method == row.method),
                "{}: a row for an rpc the service does not serve",
                row.method
            );
        }
    }
}
