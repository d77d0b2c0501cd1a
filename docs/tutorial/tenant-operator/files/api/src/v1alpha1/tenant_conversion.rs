//! Conversion of Tenant between this version, v1alpha1, and the hub version v1 (the
//! storage version). The manager's conversion webhook converts every other version through the hub.
//!
//! - v1alpha1's `admin` is the first of v1's `admins`;
//! - v1alpha1's `cpu`, `memory` and `pods` are the fields of v1's `quota`;
//! - the namespaces and the status are the same in both.
//!
//! v1alpha1 cannot hold a second admin. As Kubernetes' API conventions advise, the admins
//! after the first travel in the annotation [`ADDITIONAL_ADMINS`] of the v1alpha1 object (a
//! JSON list), and come back from it: a v1 Tenant read and written back as v1alpha1 keeps all
//! its admins. The annotation is never stored: the API server stores v1, which has no use for
//! it. A v1alpha1 client that removes the `admin` removes them all.

use std::collections::BTreeMap;

use rop::conversion::{ConversionError, Spoke};
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rop::k8s_openapi::serde_json;

use super::{Tenant, TenantSpec, TenantStatus};
use crate::v1;
use crate::v1::Tenant as HubTenant;

/// The annotation of a v1alpha1 Tenant that holds the v1 admins after the first, which
/// v1alpha1 has no field for: a JSON list of user names.
pub const ADDITIONAL_ADMINS: &str = "tenancy.example.com/additional-admins";

impl Spoke<HubTenant> for Tenant {
    fn convert_to_hub(self) -> Result<HubTenant, ConversionError> {
        let mut metadata = self.metadata;
        let additional = take_annotation(&mut metadata)?;
        let spec = self.spec;
        let admins = match spec.admin {
            Some(admin) => std::iter::once(admin).chain(additional).collect(),
            None => Vec::new(),
        };
        let quota = v1::Quota {
            cpu: spec.cpu,
            memory: spec.memory,
            pods: spec.pods,
        };
        Ok(HubTenant {
            metadata,
            spec: v1::TenantSpec {
                namespaces: spec.namespaces,
                admins,
                quota,
            },
            status: self.status.map(|status| v1::TenantStatus {
                conditions: status.conditions,
                observed_generation: status.observed_generation,
            }),
        })
    }

    fn convert_from_hub(hub: HubTenant) -> Result<Self, ConversionError> {
        let mut metadata = hub.metadata;
        let mut admins = hub.spec.admins.into_iter();
        let admin = admins.next();
        let additional: Vec<String> = admins.collect();
        // A stale copy on the hub object means nothing: the spec says who the admins are.
        let annotations = metadata.annotations.get_or_insert_with(BTreeMap::new);
        annotations.remove(ADDITIONAL_ADMINS);
        if !additional.is_empty() {
            let list = serde_json::to_string(&additional).map_err(|e| {
                ConversionError::new(format!(
                    "cannot write the admins into {ADDITIONAL_ADMINS}: {e}"
                ))
            })?;
            annotations.insert(ADDITIONAL_ADMINS.into(), list);
        }
        if annotations.is_empty() {
            metadata.annotations = None;
        }
        let quota = hub.spec.quota;
        Ok(Tenant {
            metadata,
            spec: TenantSpec {
                namespaces: hub.spec.namespaces,
                admin,
                cpu: quota.cpu,
                memory: quota.memory,
                pods: quota.pods,
            },
            status: hub.status.map(|status| TenantStatus {
                conditions: status.conditions,
                observed_generation: status.observed_generation,
            }),
        })
    }
}

/// Removes [`ADDITIONAL_ADMINS`] from `metadata` (and the annotations with it when it was the
/// only one); returns the admins it held.
fn take_annotation(metadata: &mut ObjectMeta) -> Result<Vec<String>, ConversionError> {
    let Some(annotations) = metadata.annotations.as_mut() else {
        return Ok(Vec::new());
    };
    let Some(list) = annotations.remove(ADDITIONAL_ADMINS) else {
        return Ok(Vec::new());
    };
    if annotations.is_empty() {
        metadata.annotations = None;
    }
    serde_json::from_str(&list).map_err(|e| {
        ConversionError::new(format!(
            "metadata.annotations[{ADDITIONAL_ADMINS}]: {e}: it must be a JSON list of user names, as in [\"bob@example.com\"]"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v1 Tenant with `admins`, as the API server stores it.
    fn hub(admins: &[&str]) -> HubTenant {
        let mut tenant = HubTenant::new(
            "acme",
            v1::TenantSpec {
                namespaces: vec!["acme-dev".into(), "acme-prod".into()],
                admins: admins.iter().map(|a| a.to_string()).collect(),
                quota: v1::Quota {
                    cpu: "8".into(),
                    memory: "16Gi".into(),
                    pods: 50,
                },
            },
        );
        tenant.metadata.labels = Some(BTreeMap::from([("team".into(), "acme".into())]));
        tenant.status = Some(v1::TenantStatus {
            conditions: Vec::new(),
            observed_generation: Some(3),
        });
        tenant
    }

    #[test]
    fn the_quota_is_flattened_and_the_first_admin_is_the_admin() {
        let spoke = Tenant::convert_from_hub(hub(&["alice@example.com"])).unwrap();

        assert_eq!(
            spoke.spec,
            TenantSpec {
                namespaces: vec!["acme-dev".into(), "acme-prod".into()],
                admin: Some("alice@example.com".into()),
                cpu: "8".into(),
                memory: "16Gi".into(),
                pods: 50,
            }
        );
        assert_eq!(
            spoke.metadata.annotations, None,
            "one admin needs no annotation"
        );
        assert_eq!(spoke.status.unwrap().observed_generation, Some(3));
    }

    #[test]
    fn admins_after_the_first_travel_in_an_annotation_and_come_back() {
        let tenant = hub(&["alice@example.com", "bob@example.com", "carol@example.com"]);

        let spoke = Tenant::convert_from_hub(tenant.clone()).unwrap();
        assert_eq!(spoke.spec.admin.as_deref(), Some("alice@example.com"));
        let annotations = spoke.metadata.annotations.clone().unwrap();
        assert_eq!(
            annotations[ADDITIONAL_ADMINS],
            r#"["bob@example.com","carol@example.com"]"#
        );
        assert_eq!(spoke.convert_to_hub().unwrap(), tenant, "nothing is lost");
    }

    #[test]
    fn a_tenant_without_admins_round_trips() {
        let tenant = hub(&[]);

        let spoke = Tenant::convert_from_hub(tenant.clone()).unwrap();
        assert_eq!(spoke.spec.admin, None);
        assert_eq!(spoke.clone().convert_to_hub().unwrap(), tenant);
        let again = Tenant::convert_from_hub(spoke.clone().convert_to_hub().unwrap()).unwrap();
        assert_eq!(again, spoke);
    }

    #[test]
    fn a_v1alpha1_tenant_with_more_admins_round_trips_through_the_hub() {
        let mut spoke = Tenant::convert_from_hub(hub(&["alice@example.com"])).unwrap();
        spoke.metadata.annotations = Some(BTreeMap::from([
            ("note".into(), "kept".into()),
            (ADDITIONAL_ADMINS.into(), r#"["dave@example.com"]"#.into()),
        ]));

        let tenant = spoke.clone().convert_to_hub().unwrap();
        assert_eq!(
            tenant.spec.admins,
            ["alice@example.com", "dave@example.com"]
        );
        assert_eq!(
            tenant.metadata.annotations,
            Some(BTreeMap::from([("note".into(), "kept".into())])),
            "the hub does not store the annotation"
        );
        assert_eq!(Tenant::convert_from_hub(tenant).unwrap(), spoke);
    }

    #[test]
    fn without_its_admin_a_v1alpha1_tenant_has_no_admins() {
        let mut spoke =
            Tenant::convert_from_hub(hub(&["alice@example.com", "bob@example.com"])).unwrap();
        spoke.spec.admin = None;

        assert!(spoke.convert_to_hub().unwrap().spec.admins.is_empty());
    }

    #[test]
    fn an_annotation_that_is_no_list_is_refused_with_its_name() {
        let mut spoke = Tenant::convert_from_hub(hub(&["alice@example.com"])).unwrap();
        spoke.metadata.annotations = Some(BTreeMap::from([(
            ADDITIONAL_ADMINS.into(),
            "bob@example.com".into(),
        )]));

        assert_eq!(
            spoke.convert_to_hub().unwrap_err().to_string(),
            "metadata.annotations[tenancy.example.com/additional-admins]: expected value at line 1 column 1: it must be a JSON list of user names, as in [\"bob@example.com\"]"
        );
    }
}
