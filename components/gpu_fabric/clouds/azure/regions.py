"""The regions of Azure (data; the provider checks ``location`` against it).

Source: ``az account list-locations`` names,
https://learn.microsoft.com/azure/reliability/regions-list. When Azure opens a
region, add it here with its source.
"""

from __future__ import annotations

AZURE_REGIONS: frozenset[str] = frozenset({
    "australiacentral", "australiacentral2", "australiaeast", "australiasoutheast",
    "austriaeast", "belgiumcentral", "brazilsouth", "brazilsoutheast", "canadacentral",
    "canadaeast", "centralindia", "centralus", "chilecentral", "eastasia", "eastus",
    "eastus2", "francecentral", "francesouth", "germanynorth", "germanywestcentral",
    "indonesiacentral", "israelcentral", "italynorth", "japaneast", "japanwest",
    "jioindiacentral", "jioindiawest", "koreacentral", "koreasouth", "malaysiawest",
    "mexicocentral", "newzealandnorth", "northcentralus", "northeurope", "norwayeast",
    "norwaywest", "polandcentral", "qatarcentral", "southafricanorth", "southafricawest",
    "southcentralus", "southeastasia", "southindia", "spaincentral", "swedencentral",
    "swedensouth", "switzerlandnorth", "switzerlandwest", "uaecentral", "uaenorth",
    "uksouth", "ukwest", "westcentralus", "westeurope", "westindia", "westus", "westus2",
    "westus3", "usgovarizona", "usgovtexas", "usgovvirginia",
})
